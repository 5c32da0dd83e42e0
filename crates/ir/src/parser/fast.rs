//! Fast paths: the commonest multi-token spellings of instruction lines consumed directly from the
//! bytes (`%x = `, `ptr addrspace(N)`, `, align N`, `, !kind !N`, `label %x`), and small caches of
//! names that recur (metadata kinds, global symbols).
//!
//! Each fast path recognises one exact spelling and produces what the token-by-token path produces
//! for it (the same values, the same interning order, the same `prev_end` and the same next token);
//! anything else, including every spelling that could be an error, is left to the general path.
//! A token costs the lexer about 90 instructions (docs/benchmarks.md, issue 13 part 2), so skipping
//! the `=`, `addrspace`, `(N)`, `align`, `!kind`, `!` and `N` tokens of a typical line is most of
//! what these save.

use super::*;

/// Entries of [`WordCache`] (a power of two).
const WORD_CACHE: usize = 64;

/// A direct-mapped cache from a name of 1 to 16 bytes to a `u32` (a symbol or a table index).
/// An entry is exact: the name's bytes as two zero-padded words plus its length.
pub(super) struct WordCache {
    slots: Box<[(u64, u64, u32, u32); WORD_CACHE]>,
}

impl WordCache {
    pub(super) fn new() -> Self {
        WordCache {
            slots: Box::new([(0, 0, u32::MAX, 0); WORD_CACHE]),
        }
    }

    #[inline]
    fn key(b: &[u8]) -> Option<([u64; 2], usize)> {
        if b.is_empty() || b.len() > 16 {
            return None;
        }
        let w = crate::fx::text_words(b);
        let h = (w[0] ^ w[1].rotate_left(23) ^ b.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        Some((w, (h >> 58) as usize & (WORD_CACHE - 1)))
    }

    #[inline]
    pub(super) fn get(&self, b: &[u8]) -> Option<u32> {
        let (w, i) = Self::key(b)?;
        let e = &self.slots[i];
        (e.0 == w[0] && e.1 == w[1] && e.2 == b.len() as u32).then_some(e.3)
    }

    #[inline]
    pub(super) fn put(&mut self, b: &[u8], v: u32) {
        if let Some((w, i)) = Self::key(b) {
            self.slots[i] = (w[0], w[1], b.len() as u32, v);
        }
    }
}

/// A byte after a number that ends its token exactly there (the lexer's number and word runs stop
/// at it, and it cannot turn the number into a label or a float).
#[inline]
fn ends_number(c: Option<&u8>) -> bool {
    matches!(c, None | Some(b',' | b' ' | b'\n' | b'\r' | b'\t' | b')'))
}

#[inline]
fn is_label_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'$' | b'.' | b'_' | b'-')
}

impl<'s> Parser<'s> {
    /// Continues after bytes the parser consumed itself: `end` is the end of the last consumed
    /// token (what `bump` would have left in `prev_end`), the next token is lexed from there.
    #[inline]
    pub(super) fn consumed_to(&mut self, end: usize) {
        self.prev_end = end as u32;
        self.lex.seek(end);
        self.tok = self.lex.next();
    }

    /// 1 to 9 decimal digits at `i` ending a number token (see [`ends_number`]): the value and the
    /// end. Such a number never overflows a `u32`, so `u32_of` would accept it.
    #[inline]
    pub(super) fn small_number_at(&self, i: usize) -> Option<(u32, usize)> {
        let b = self.b;
        let mut j = i;
        let mut v = 0u32;
        while let Some(&c) = b.get(j) {
            if !c.is_ascii_digit() {
                break;
            }
            v = v * 10 + (c - b'0') as u32;
            j += 1;
            if j - i > 9 {
                return None;
            }
        }
        (j > i && ends_number(b.get(j))).then_some((v, j))
    }

    /// The end of a run of label characters (`[-a-zA-Z$._0-9]`) from `i`.
    #[inline]
    fn label_run(&self, mut i: usize) -> usize {
        while let Some(&c) = self.b.get(i) {
            if !is_label_byte(c) {
                break;
            }
            i += 1;
        }
        i
    }

    /// At a result name (`%x`/`%7`) followed by exactly ` = `: consumes both and returns the name's
    /// token (the opcode is then the current token).
    #[inline]
    pub(super) fn result_eq_fast(&mut self) -> Option<Token> {
        let t = self.tok;
        let e = t.end as usize;
        if self.b.get(e..e + 3) != Some(b" = ") {
            return None;
        }
        self.consumed_to(e + 2);
        Some(t)
    }

    /// At `ptr` followed by ` addrspace(N)`: consumes the three tokens and returns N.
    #[inline]
    pub(super) fn ptr_addrspace_fast(&mut self) -> Option<u32> {
        let e = self.tok.end as usize;
        if self.b.get(e..e + 11) != Some(b" addrspace(") {
            return None;
        }
        let (n, end) = self.small_number_at(e + 11)?;
        if self.b.get(end) != Some(&b')') {
            return None;
        }
        self.consumed_to(end + 1);
        Some(n)
    }

    /// At a `,` followed by ` align N`: consumes the three tokens and returns N.
    #[inline]
    pub(super) fn comma_align_fast(&mut self) -> Option<u32> {
        let e = self.tok.end as usize;
        if self.b.get(e..e + 7) != Some(b" align ") {
            return None;
        }
        let (n, end) = self.small_number_at(e + 7)?;
        self.consumed_to(end);
        Some(n)
    }

    /// At a `,` followed by ` !kind !N` (a plain kind name, N of 1 to 9 digits): consumes the four
    /// tokens and pushes the attachment as [`Parser::md_attachment`] does.
    #[inline]
    pub(super) fn comma_md_attachment_fast(&mut self, f: &mut Function) -> Option<PResult<()>> {
        let b = self.b;
        let e = self.tok.end as usize;
        if b.get(e..e + 2) != Some(b" !") {
            return None;
        }
        // `!kind`: the lexer's metadata name (an identifier start, then label characters).
        let ks = e + 2;
        let first = *b.get(ks)?;
        if !(first.is_ascii_alphabetic() || matches!(first, b'$' | b'.' | b'_')) {
            return None;
        }
        let ke = self.label_run(ks + 1);
        if b.get(ke..ke + 2) != Some(b" !") {
            return None;
        }
        let (_, ne) = self.small_number_at(ke + 2)?;
        let kind_tok = Token {
            start: (ks - 1) as u32,
            end: ke as u32,
            kind: Tok::MetadataVar,
        };
        let num_tok = Token {
            start: (ke + 2) as u32,
            end: ne as u32,
            kind: Tok::Integer,
        };
        self.consumed_to(ne);
        let kind = self.md_kind_sym(kind_tok);
        Some(self.md_number(num_tok).map(|n| {
            let m = self.md_use(
                n,
                Span {
                    start: num_tok.start - 1,
                    end: num_tok.end,
                },
            );
            f.md_attachments.push((kind, m));
        }))
    }

    /// The interned name of an attachment kind token (`!tbaa`), as `name_sym` gives it, through a
    /// cache (the few kinds of a module recur on most instructions).
    #[inline]
    pub(super) fn md_kind_sym(&mut self, t: Token) -> Sym {
        let raw = &self.b[t.start as usize + 1..t.end as usize];
        if let Some(s) = self.md_kinds.get(raw) {
            return Sym(s);
        }
        let s = self.name_sym(t);
        if raw.first() != Some(&b'"') {
            self.md_kinds.put(raw, s.0);
        }
        s
    }

    /// At `label` followed by ` %name` (a plain name): consumes both tokens and returns the name's
    /// token.
    #[inline]
    pub(super) fn label_name_fast(&mut self) -> Option<Token> {
        let b = self.b;
        let t = self.tok;
        let e = t.end as usize;
        if t.end - t.start != 5
            || b.get(t.start as usize..e) != Some(b"label")
            || b.get(e..e + 2) != Some(b" %")
        {
            return None;
        }
        let first = *b.get(e + 2)?;
        if !is_label_byte(first) || first.is_ascii_digit() {
            return None;
        }
        let ne = self.label_run(e + 3);
        self.consumed_to(ne);
        Some(Token {
            start: (e + 1) as u32,
            end: ne as u32,
            kind: Tok::LocalVar,
        })
    }

    /// The index in `gsyms` of a global name token, as `gsym(local_key(t))` gives it for a name
    /// seen before (cached by its text; the first use goes through `gsym`, which records it).
    #[inline]
    pub(super) fn gsym_of(&mut self, t: Token) -> PResult<u32> {
        let raw = &self.b[t.start as usize..t.end as usize];
        if let Some(i) = self.gsym_cache.get(raw) {
            return Ok(i);
        }
        let key = self.local_key(t)?;
        let i = self.gsym(key, Self::span(t));
        self.gsym_cache.put(raw, i);
        Ok(i)
    }
}
