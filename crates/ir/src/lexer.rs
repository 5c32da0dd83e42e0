//! Byte-level lexer for LLVM textual IR, following the token classes of LLVM's `LLLexer`.
//!
//! Tokens carry only a kind and a byte range; no allocation happens per token. The parser reads the
//! text of a token from the source when it needs it (keywords are compared as byte slices).

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    Eof,
    /// A byte that starts no token, or an unterminated string/comment.
    Error,
    Equal,
    Comma,
    Star,
    LSquare,
    RSquare,
    LBrace,
    RBrace,
    Less,
    Greater,
    LParen,
    RParen,
    /// `!` not followed by a name (`!0`, `!{`, `!"s"`).
    Exclaim,
    Bar,
    Colon,
    DotDotDot,
    /// `%name` or `%"quoted"`.
    LocalVar,
    /// `%12`.
    LocalId,
    GlobalVar,
    GlobalId,
    /// `$name`.
    ComdatVar,
    /// `!name` (named metadata, attachment kinds, specialised node names).
    MetadataVar,
    /// `#12`.
    AttrGrpId,
    /// `#dbg_value` and other debug records.
    DbgRecord,
    /// `^12` (summary entries).
    SummaryId,
    /// `foo:` or `"foo":`.
    LabelStr,
    /// `12:`.
    LabelId,
    /// A bare word: keywords, `i32`, `c` of `c"..."`.
    Ident,
    /// `123`, `-5`, `u0x1F`, `s0xFF`.
    Integer,
    /// `1.5e3`, `0x3FF0000000000000`, `0xK…` etc.
    Float,
    /// `"..."`, escapes kept.
    Str,
}

/// `repr(C)` keeps `start` and `end` adjacent, so the lexer's packed span is stored with one write
/// and the parser's copies of a token read back what was written (no store-forwarding stalls).
#[derive(Copy, Clone, Debug)]
#[repr(C)]
pub(crate) struct Token {
    pub start: u32,
    pub end: u32,
    pub kind: Tok,
}

pub(crate) struct Lexer<'s> {
    b: &'s [u8],
    pos: usize,
}

/// Character classes, one table lookup per byte: identifier start, identifier, label.
const START: u8 = 1;
const IDENT: u8 = 2;
const LABEL: u8 = 4;
const SPACE: u8 = 8;
/// A label character that starts a word token directly (not `.`, which may start `...`, nor `$`,
/// which may start a comdat name).
const WORD: u8 = 16;
const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        let alpha = b.is_ascii_alphabetic() || b == b'$' || b == b'.' || b == b'_';
        let digit = b.is_ascii_digit();
        if alpha {
            t[c] = START | IDENT | LABEL;
            if b != b'.' && b != b'$' {
                t[c] |= WORD;
            }
        } else if digit {
            t[c] = IDENT | LABEL | WORD;
        } else if b == b'-' {
            t[c] = LABEL | WORD;
        } else if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            t[c] = SPACE;
        }
        c += 1;
    }
    t
};

/// The one-byte punctuation tokens by their byte (`None`: any other byte).
const PUNCT: [Option<Tok>; 256] = {
    let mut t = [None; 256];
    t[b'=' as usize] = Some(Tok::Equal);
    t[b',' as usize] = Some(Tok::Comma);
    t[b'*' as usize] = Some(Tok::Star);
    t[b'[' as usize] = Some(Tok::LSquare);
    t[b']' as usize] = Some(Tok::RSquare);
    t[b'{' as usize] = Some(Tok::LBrace);
    t[b'}' as usize] = Some(Tok::RBrace);
    t[b'<' as usize] = Some(Tok::Less);
    t[b'>' as usize] = Some(Tok::Greater);
    t[b'(' as usize] = Some(Tok::LParen);
    t[b')' as usize] = Some(Tok::RParen);
    t[b'|' as usize] = Some(Tok::Bar);
    t[b':' as usize] = Some(Tok::Colon);
    t
};

#[inline]
fn is_ident_start(c: u8) -> bool {
    CLASS[c as usize] & START != 0
}
#[inline]
fn is_ident(c: u8) -> bool {
    CLASS[c as usize] & IDENT != 0
}
#[inline]
fn is_space(c: u8) -> bool {
    CLASS[c as usize] & SPACE != 0
}
/// A label character (`[-a-zA-Z$._0-9]`): one table lookup (the parser's fast paths use it too).
#[inline]
pub(crate) fn is_label(c: u8) -> bool {
    CLASS[c as usize] & LABEL != 0
}

/// The end of the run of lowercase ASCII letters from `i` (an opcode or keyword): the first
/// eight bytes tested at once (every common opcode is shorter), so the run's end, which differs
/// from line to line, is no loop exit; longer runs go on byte by byte.
#[inline(always)]
pub(crate) fn lower_run(b: &[u8], i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x80 * ONES;
    let Some(w) = b.get(i..i.wrapping_add(8)) else {
        return lower_loop(b, i);
    };
    let x = u64::from_le_bytes(w.try_into().unwrap_or([0; 8]));
    // Per byte, with its top bit cleared (no carries between bytes): the top bit of `x7 + 0x1f`
    // is set from `a` (0x61) on, that of `x7 + 0x05` from `{` (0x7b) on; a byte with its own top
    // bit set is no letter.
    let x7 = x & !HIGH;
    let lower = (x7 + 0x1f * ONES) & !(x7 + 0x05 * ONES) & !x & HIGH;
    let n = (!lower & HIGH).trailing_zeros() as usize / 8;
    if n < 8 {
        return i + n;
    }
    lower_loop(b, i + 8)
}

/// [`lower_run`] byte by byte.
#[inline(never)]
fn lower_loop(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(u8::is_ascii_lowercase) {
        i += 1;
    }
    i
}

impl<'s> Lexer<'s> {
    pub fn new(b: &'s [u8]) -> Self {
        Lexer { b, pos: 0 }
    }

    /// Continues lexing at byte `pos` (after the parser consumed bytes itself on a fast path).
    #[inline]
    pub fn seek(&mut self, pos: usize) {
        self.pos = pos;
    }

    #[inline]
    fn at(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(0)
    }

    /// The end of the run of bytes from `i` that satisfy `pred`. A plain byte loop: the runs are
    /// short (names, keywords), and a slice iterator's set-up or an eight-bytes-at-a-time test
    /// costs more than it saves on them (docs/benchmarks-issue13.md, part 2, third round).
    #[inline]
    fn run(&self, mut i: usize, pred: impl Fn(u8) -> bool) -> usize {
        while let Some(&c) = self.b.get(i) {
            if !pred(c) {
                break;
            }
            i += 1;
        }
        i
    }

    /// Skips a `"..."` string starting at `i` (the opening quote); returns the index after the
    /// closing quote, or `None` if unterminated.
    fn skip_string(&self, i: usize) -> Option<usize> {
        let rest = &self.b[i + 1..];
        rest.iter().position(|&c| c == b'"').map(|p| i + 1 + p + 1)
    }

    /// Skips a name after a sigil (`%`, `@`, `$`): quoted, numeric or plain. Returns (end, is_id,
    /// ok).
    fn name_after_sigil(&self, i: usize) -> (usize, bool, bool) {
        let c = self.at(i);
        if c == b'"' {
            return match self.skip_string(i) {
                Some(e) => (e, false, true),
                None => (self.b.len(), false, false),
            };
        }
        if c.is_ascii_digit() {
            return (self.run(i, |c| c.is_ascii_digit()), true, true);
        }
        if is_label(c) {
            return (self.run(i, is_label), false, true);
        }
        (i, false, false)
    }

    /// The next token. The work is in [`Lexer::next_packed`], which returns the token in two
    /// registers (a 12-byte struct would be returned through memory).
    #[inline(always)]
    pub fn next(&mut self) -> Token {
        let (kind, span) = self.next_packed();
        Token {
            start: span as u32,
            end: (span >> 32) as u32,
            kind,
        }
    }

    /// [`Lexer::next`] where a line may end: the first token of the next line read directly from
    /// its bytes when the line has the printer's layout, a newline then either two spaces and a
    /// plain local name (`  %x`, `  %7`) or a lowercase word followed by a space (`  br `), or
    /// a label starting with a letter (`b7:`, also after an empty line). These are the tokens `next` gives there (see
    /// `other_token`'s sigils and `word_not_number`); any other bytes go to `next`. A whole-line
    /// fast path of the parser ends with this call, so most lines cost no other lexer call.
    #[inline(always)]
    pub fn next_after_line(&mut self) -> Token {
        let b = self.b;
        let i = self.pos;
        if b.get(i) == Some(&b'\n')
            && let Some((kind, start, end)) = self.line_start(i + 1)
        {
            self.pos = end;
            return Token {
                start: start as u32,
                end: end as u32,
                kind,
            };
        }
        self.next()
    }

    /// The first token of a line starting at `i`, in the spellings of [`Lexer::next_after_line`].
    #[inline(always)]
    fn line_start(&self, i: usize) -> Option<(Tok, usize, usize)> {
        let b = self.b;
        match *b.get(i..i + 4)? {
            [b' ', b' ', b'%', d] => {
                let s = i + 2;
                if d.is_ascii_digit() {
                    Some((Tok::LocalId, s, self.run(i + 4, |c| c.is_ascii_digit())))
                } else if is_label(d) {
                    Some((Tok::LocalVar, s, self.run(i + 4, is_label)))
                } else {
                    None
                }
            }
            [b' ', b' ', c, _] if c.is_ascii_lowercase() => {
                let s = i + 2;
                let e = lower_run(b, s + 1);
                (b.get(e) == Some(&b' ')).then_some((Tok::Ident, s, e))
            }
            [c, ..] if c.is_ascii_alphabetic() => self.label_at(i),
            // A label after an empty line (clang's layout).
            [b'\n', c, ..] if c.is_ascii_alphabetic() => self.label_at(i + 1),
            _ => None,
        }
    }

    /// A label `name:` at `i`, its first byte a letter: `word_not_number`'s label (an identifier
    /// run then `:`; not all digits, as it starts with a letter).
    #[inline(always)]
    fn label_at(&self, i: usize) -> Option<(Tok, usize, usize)> {
        let e = self.run(i + 1, is_ident);
        (self.b.get(e) == Some(&b':')).then_some((Tok::LabelStr, i, e + 1))
    }

    /// The next token's kind and its span as `start | end << 32`.
    ///
    /// Kept small on purpose: whitespace, then one table lookup that settles the one-byte
    /// punctuation tokens (a third of all tokens) and sends words and everything else to
    /// functions of their own, called in tail position. The function then needs no callee-saved
    /// registers, so it has no prologue or epilogue; the old single function saved and restored
    /// five registers and went through a jump table on every token.
    #[inline(never)]
    fn next_packed(&mut self) -> (Tok, u64) {
        let b = self.b;
        let mut i = self.pos;
        // Usually one space or none (a byte loop: no slice set-up for so short a run).
        let c = loop {
            let Some(&c) = b.get(i) else {
                self.pos = i;
                return (Tok::Eof, pack(i, i));
            };
            if !is_space(c) {
                break c;
            }
            i += 1;
        };
        if let Some(kind) = PUNCT[c as usize] {
            self.pos = i + 1;
            return (kind, pack(i, i + 1));
        }
        if CLASS[c as usize] & WORD != 0 {
            return self.word_token(i, c);
        }
        self.other_token(i, c)
    }

    /// A word token at `i` (its first byte a label character other than `.` and `$`).
    #[inline(never)]
    fn word_token(&mut self, i: usize, c: u8) -> (Tok, u64) {
        // Numbers go on in a function of their own, called in tail position, so that this one
        // keeps everything in caller-saved registers too.
        let Some((kind, end)) = self.word_not_number(i, c) else {
            return self.number_token(i);
        };
        self.pos = end;
        (kind, pack(i, end))
    }

    /// A number token at `i` (see [`Lexer::number`]).
    #[inline(never)]
    fn number_token(&mut self, i: usize) -> (Tok, u64) {
        let (kind, end) = self.number(i);
        self.pos = end;
        (kind, pack(i, end))
    }

    /// Every token that is neither one-byte punctuation nor a word starting with a label
    /// character other than `.` and `$`: comments (skipped, then the next token), sigils,
    /// strings, `...`, numbers with `+`, and invalid bytes.
    #[inline(never)]
    fn other_token(&mut self, i: usize, c: u8) -> (Tok, u64) {
        let b = self.b;
        let start = i;
        let (kind, end) = match c {
            b';' | b'/' if c == b';' || self.at(i + 1) == b'*' => {
                // Comments and the whitespace after them, then the token after them (a loop, not
                // a recursion per comment: the token after the loop starts no comment, so the
                // call below comes back here at most for a lone `/`, which is an error token).
                let mut i = i;
                loop {
                    match b.get(i) {
                        Some(b';') => {
                            i = match memchr_nl(&b[i..]) {
                                Some(p) => i + p,
                                None => b.len(),
                            }
                        }
                        Some(b'/') if self.at(i + 1) == b'*' => {
                            match b[i + 2..].windows(2).position(|w| w == b"*/") {
                                Some(p) => i = i + 2 + p + 2,
                                None => {
                                    self.pos = b.len();
                                    return (Tok::Error, pack(i, b.len()));
                                }
                            }
                        }
                        Some(&c) if is_space(c) => i += 1,
                        _ => break,
                    }
                }
                self.pos = i;
                return self.next_packed();
            }
            b'%' | b'@' => {
                let (e, is_id, ok) = self.name_after_sigil(i + 1);
                let kind = match (c, ok, is_id) {
                    (_, false, _) => Tok::Error,
                    (b'%', _, true) => Tok::LocalId,
                    (b'%', _, false) => Tok::LocalVar,
                    (_, _, true) => Tok::GlobalId,
                    _ => Tok::GlobalVar,
                };
                (kind, e.max(i + 1))
            }
            b'$' => {
                // `$name` comdat; `$` alone may start an identifier.
                let (e, _, ok) = self.name_after_sigil(i + 1);
                if ok {
                    (Tok::ComdatVar, e)
                } else {
                    self.word(i)
                }
            }
            b'!' => {
                let n = self.at(i + 1);
                if is_ident_start(n) || n == b'-' || n == b'\\' {
                    let mut j = i + 1;
                    while is_label(self.at(j)) || self.at(j) == b'\\' {
                        j += 1;
                    }
                    (Tok::MetadataVar, j)
                } else {
                    (Tok::Exclaim, i + 1)
                }
            }
            b'#' => {
                if self.at(i + 1).is_ascii_digit() {
                    let mut j = i + 1;
                    while self.at(j).is_ascii_digit() {
                        j += 1;
                    }
                    (Tok::AttrGrpId, j)
                } else if is_ident_start(self.at(i + 1)) {
                    let mut j = i + 1;
                    while is_ident(self.at(j)) {
                        j += 1;
                    }
                    (Tok::DbgRecord, j)
                } else {
                    (Tok::Error, i + 1)
                }
            }
            b'^' => {
                let mut j = i + 1;
                while self.at(j).is_ascii_digit() {
                    j += 1;
                }
                if j == i + 1 {
                    (Tok::Error, j)
                } else {
                    (Tok::SummaryId, j)
                }
            }
            b'"' => match self.skip_string(i) {
                Some(e) => {
                    if self.at(e) == b':' {
                        (Tok::LabelStr, e + 1)
                    } else {
                        (Tok::Str, e)
                    }
                }
                None => (Tok::Error, b.len()),
            },
            b'.' if self.at(i + 1) == b'.' && self.at(i + 2) == b'.' => (Tok::DotDotDot, i + 3),
            b'+' => {
                // `+1.0`-style floats.
                let (k, e) = self.number(i + 1);
                if k == Tok::Float {
                    (Tok::Float, e)
                } else {
                    (Tok::Error, i + 1)
                }
            }
            _ if is_label(c) => self.word(i),
            _ => {
                // Skip a whole UTF-8 character so spans stay on char boundaries.
                let mut j = i + 1;
                while j < b.len() && (b[j] & 0xC0) == 0x80 {
                    j += 1;
                }
                (Tok::Error, j)
            }
        };
        self.pos = end;
        (kind, pack(start, end))
    }

    /// A word starting with a label character: label, identifier/keyword or number.
    fn word(&self, i: usize) -> (Tok, usize) {
        self.word_not_number(i, self.at(i))
            .unwrap_or_else(|| self.number(i))
    }

    /// A word starting with a label character `c` at `i` if it is a label or an
    /// identifier/keyword; `None` for a number.
    #[inline(always)]
    fn word_not_number(&self, i: usize, c: u8) -> Option<(Tok, usize)> {
        // Label characters are the identifier characters plus `-`: the identifier ends at `k`,
        // the first non-identifier byte, and the label run continues only if that byte is `-`.
        let k = self.run(i, is_ident);
        let j = if self.at(k) == b'-' {
            self.run(k, is_label)
        } else {
            k
        };
        if self.at(j) == b':' {
            // (`get`: no panic path, which would make the caller keep a stack frame.)
            let all_digits = self
                .b
                .get(i..j)
                .is_some_and(|w| w.iter().all(u8::is_ascii_digit));
            return Some((
                if all_digits {
                    Tok::LabelId
                } else {
                    Tok::LabelStr
                },
                j + 1,
            ));
        }
        if is_ident_start(c) {
            // `u0x…` / `s0x…` hex integers.
            if (c == b'u' || c == b's') && self.at(i + 1) == b'0' && self.at(i + 2) == b'x' {
                let mut k = i + 3;
                while self.at(k).is_ascii_hexdigit() {
                    k += 1;
                }
                if k > i + 3 {
                    return Some((Tok::Integer, k));
                }
            }
            // The identifier is the label-character run up to its first `-` (usually all of it).
            return Some((Tok::Ident, k));
        }
        None
    }

    /// `-?[0-9]+`, optionally a float; `0x…` hex floats.
    #[inline]
    fn number(&self, i: usize) -> (Tok, usize) {
        let mut j = i;
        if self.at(j) == b'-' {
            j += 1;
        }
        if !self.at(j).is_ascii_digit() {
            return (Tok::Error, j.max(i + 1));
        }
        if self.at(j) == b'0' && self.at(j + 1) == b'x' {
            let mut k = j + 2;
            if matches!(self.at(k), b'K' | b'L' | b'M' | b'H' | b'R') {
                k += 1;
            }
            let s = k;
            while self.at(k).is_ascii_hexdigit() {
                k += 1;
            }
            return if k > s {
                (Tok::Float, k)
            } else {
                (Tok::Error, k)
            };
        }
        while self.at(j).is_ascii_digit() {
            j += 1;
        }
        if self.at(j) != b'.' {
            return (Tok::Integer, j);
        }
        j += 1;
        while self.at(j).is_ascii_digit() {
            j += 1;
        }
        if matches!(self.at(j), b'e' | b'E') {
            let mut k = j + 1;
            if matches!(self.at(k), b'+' | b'-') {
                k += 1;
            }
            if self.at(k).is_ascii_digit() {
                while self.at(k).is_ascii_digit() {
                    k += 1;
                }
                j = k;
            }
        }
        (Tok::Float, j)
    }
}

#[inline]
fn pack(start: usize, end: usize) -> u64 {
    start as u32 as u64 | (end as u32 as u64) << 32
}

#[inline]
fn memchr_nl(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == b'\n')
}

/// Decodes LLVM's string escapes (`\\` and `\XX` hex) into `out`. Invalid escapes are kept as is.
pub(crate) fn unescape_into(raw: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < raw.len() {
        let c = raw[i];
        if c == b'\\' {
            if raw.get(i + 1) == Some(&b'\\') {
                out.push(b'\\');
                i += 2;
                continue;
            }
            if let (Some(h), Some(l)) = (raw.get(i + 1), raw.get(i + 2))
                && let (Some(h), Some(l)) = (hex(*h), hex(*l))
            {
                out.push(h * 16 + l);
                i += 3;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
}

#[inline]
fn hex(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<Tok> {
        let mut l = Lexer::new(s.as_bytes());
        let mut v = Vec::new();
        loop {
            let t = l.next();
            if t.kind == Tok::Eof {
                break;
            }
            v.push(t.kind);
        }
        v
    }

    #[test]
    fn token_classes() {
        use Tok::*;
        assert_eq!(
            kinds("%x = add i32 %0, -5 ; c\nbb.1: 12: \"q q\": !dbg !12 #0 #dbg_value ..."),
            vec![
                LocalVar,
                Equal,
                Ident,
                Ident,
                LocalId,
                Comma,
                Integer,
                LabelStr,
                LabelId,
                LabelStr,
                MetadataVar,
                Exclaim,
                Integer,
                AttrGrpId,
                DbgRecord,
                DotDotDot
            ]
        );
        assert_eq!(
            kinds("1.5e3 0x3FF0 0xK4000 u0x1F @\"a b\" @3 $c c\"x\\00\""),
            vec![
                Float, Float, Float, Integer, GlobalVar, GlobalId, ComdatVar, Ident, Str
            ]
        );
        assert_eq!(kinds("\"unterminated"), vec![Error]);
    }

    /// `next_after_line` gives `next`'s token at every position of texts made of the spellings
    /// it reads directly and their near misses (other indentation, quotes, sigils, digits,
    /// labels with `-`, words without the space, the end of the text).
    #[test]
    fn next_after_line_is_next() {
        let pieces = [
            "\n  %x = add",
            "\n  %12 = a",
            "\n  %\"q\" = ",
            "\n  %-x",
            "\n  % ",
            "\n  %",
            "\n  br label",
            "\n  ret",
            "\n  br\n",
            "\n  s0x1F ",
            "\n  u0x ",
            "\n  ab-c ",
            "\n  abc: ",
            "\n   br ",
            "\n\tbr ",
            "\nb7:",
            "\nbb.1:",
            "\nb-7:",
            "\n12:",
            "\nx",
            "\nab",
            "\n\"l\":",
            "\n}",
            "\n",
            "\n  ",
            "\n  a",
            "\nab: ",
            "\n  %x",
            "\n  @g ",
            "\n  ;c\n  br ",
            "\n  Br ",
            "\n  br3 ",
            "\nB7:",
            "\n_a:",
            "\n$a:",
            "\n\nsw.bb4:",
            "\n\nb-1:",
            "\n\n\nb1:",
            "\n\n  br ",
            "\n\nx",
            "\n\n12:",
        ];
        let mut texts: Vec<String> = Vec::new();
        for a in pieces {
            for b in pieces {
                texts.push(format!("{a}{b}"));
            }
        }
        let mut taken = 0;
        for t in &texts {
            let b = t.as_bytes();
            for pos in 0..=b.len() {
                let mut l = Lexer::new(b);
                l.seek(pos);
                let mut m = Lexer::new(b);
                m.seek(pos);
                let want = m.next();
                taken += (b.get(pos) == Some(&b'\n') && l.line_start(pos + 1).is_some()) as usize;
                let got = l.next_after_line();
                assert_eq!(
                    (got.kind, got.start, got.end, l.pos),
                    (want.kind, want.start, want.end, m.pos),
                    "{t:?} at {pos}"
                );
            }
        }
        assert!(taken > 500, "{taken}");
    }

    fn spans(s: &str) -> Vec<(Tok, &str)> {
        let mut l = Lexer::new(s.as_bytes());
        let mut v = Vec::new();
        loop {
            let t = l.next();
            if t.kind == Tok::Eof {
                assert_eq!(t.start, t.end);
                break;
            }
            v.push((t.kind, &s[t.start as usize..t.end as usize]));
        }
        v
    }

    /// The paths split out of `next_packed` (comments before a token, `$`, `.`, numbers, `-`
    /// words, lone `/`): kinds and spans.
    #[test]
    fn comments_sigils_and_numbers() {
        use Tok::*;
        assert_eq!(
            spans(
                "; a\n; b\n  /* c */ ; d\n\tx /* e */, $c $ ... .x -5 -a: 12ab 0x1P u0x2 s0xq / +1.5 +x"
            ),
            vec![
                (Ident, "x"),
                (Comma, ","),
                (ComdatVar, "$c"),
                (Ident, "$"),
                (DotDotDot, "..."),
                (Ident, ".x"),
                (Integer, "-5"),
                (LabelStr, "-a:"),
                (Integer, "12"),
                (Ident, "ab"),
                (Float, "0x1"),
                (Ident, "P"),
                (Integer, "u0x2"),
                (Ident, "s0xq"),
                (Error, "/"),
                (Float, "+1.5"),
                (Error, "+"),
                (Ident, "x"),
            ]
        );
        assert_eq!(
            spans("1.5e+3 1.5e-3: 12: 3.0, 4] -7) 8-9 5e 0x: 1.e2x"),
            vec![
                (Float, "1.5e+3"),
                (LabelStr, "1.5e-3:"),
                (LabelId, "12:"),
                (Float, "3.0"),
                (Comma, ","),
                (Integer, "4"),
                (RSquare, "]"),
                (Integer, "-7"),
                (RParen, ")"),
                (Integer, "8"),
                (Integer, "-9"),
                (Integer, "5"),
                (Ident, "e"),
                (LabelStr, "0x:"),
                (Float, "1.e2"),
                (Ident, "x"),
            ]
        );
        assert_eq!(spans("a /* open"), vec![(Ident, "a"), (Error, "/* open")]);
        assert_eq!(spans("; only a comment"), vec![]);
        assert_eq!(spans("x ;"), vec![(Ident, "x")]);
    }
}

#[cfg(test)]
mod lower_run_tests {
    use super::lower_run;

    /// `lower_run` ends where a byte loop ends, for runs of every length from every offset, with
    /// every byte value after the run, and near the text's end.
    #[test]
    fn lower_run_is_the_loop() {
        let loop_end = |b: &[u8], mut i: usize| {
            while b.get(i).is_some_and(u8::is_ascii_lowercase) {
                i += 1;
            }
            i
        };
        let mut n = 0;
        for len in 0..20 {
            for stop in 0..=255u8 {
                let mut t: Vec<u8> = b"  ".to_vec();
                t.extend((0..len).map(|k| b'a' + (k * 7 % 26) as u8));
                t.push(stop);
                t.extend_from_slice(b"zz q");
                for cut in [t.len(), 2 + len + 1, 2 + len] {
                    let b = &t[..cut];
                    for i in 0..b.len() + 2 {
                        assert_eq!(lower_run(b, i), loop_end(b, i), "{b:?} from {i}");
                        n += 1;
                    }
                }
            }
        }
        assert!(n > 100_000, "{n}");
    }
}
