//! The opcode of an instruction line by one table probe. The opcode words (`br`, `getelementptr`,
//! `fadd`, …; the words `simple_opcode`'s `match` knew, with `tail`, `musttail` and `notail` as
//! `call`) sit in a table of 256 entries at a perfect hash of their first eight bytes and length
//! (a multiply-shift with a multiplier found by a search, checked when the table is built: a
//! collision fails the build). A word is its table entry's iff its two zero-padded words and its
//! length are the entry's. The `match` it replaces compiled to a tree of length tests and byte
//! comparisons: a few hundred bytes of code and several hard-to-predict branches on every line,
//! in a reader whose time on varied GPU code goes to instruction-cache misses and mispredicted
//! branches more than to instructions (docs/benchmarks-issue13.md, session 25).

use crate::fx::exact_word;
use crate::ir::Opcode;

/// Every opcode word and its opcode.
const WORDS: [(&[u8], Opcode); 69] = [
    (b"ret", Opcode::Ret),
    (b"br", Opcode::Br),
    (b"switch", Opcode::Switch),
    (b"indirectbr", Opcode::IndirectBr),
    (b"invoke", Opcode::Invoke),
    (b"resume", Opcode::Resume),
    (b"unreachable", Opcode::Unreachable),
    (b"cleanupret", Opcode::CleanupRet),
    (b"catchret", Opcode::CatchRet),
    (b"catchswitch", Opcode::CatchSwitch),
    (b"callbr", Opcode::CallBr),
    (b"fneg", Opcode::FNeg),
    (b"extractelement", Opcode::ExtractElement),
    (b"insertelement", Opcode::InsertElement),
    (b"shufflevector", Opcode::ShuffleVector),
    (b"extractvalue", Opcode::ExtractValue),
    (b"insertvalue", Opcode::InsertValue),
    (b"alloca", Opcode::Alloca),
    (b"load", Opcode::Load),
    (b"store", Opcode::Store),
    (b"fence", Opcode::Fence),
    (b"cmpxchg", Opcode::CmpXchg),
    (b"atomicrmw", Opcode::AtomicRmw),
    (b"getelementptr", Opcode::GetElementPtr),
    (b"icmp", Opcode::ICmp),
    (b"fcmp", Opcode::FCmp),
    (b"phi", Opcode::Phi),
    (b"select", Opcode::Select),
    (b"freeze", Opcode::Freeze),
    (b"call", Opcode::Call),
    (b"tail", Opcode::Call),
    (b"musttail", Opcode::Call),
    (b"notail", Opcode::Call),
    (b"va_arg", Opcode::VaArg),
    (b"landingpad", Opcode::LandingPad),
    (b"catchpad", Opcode::CatchPad),
    (b"cleanuppad", Opcode::CleanupPad),
    (b"add", Opcode::Add),
    (b"fadd", Opcode::FAdd),
    (b"sub", Opcode::Sub),
    (b"fsub", Opcode::FSub),
    (b"mul", Opcode::Mul),
    (b"fmul", Opcode::FMul),
    (b"udiv", Opcode::UDiv),
    (b"sdiv", Opcode::SDiv),
    (b"fdiv", Opcode::FDiv),
    (b"urem", Opcode::URem),
    (b"srem", Opcode::SRem),
    (b"frem", Opcode::FRem),
    (b"shl", Opcode::Shl),
    (b"lshr", Opcode::LShr),
    (b"ashr", Opcode::AShr),
    (b"and", Opcode::And),
    (b"or", Opcode::Or),
    (b"xor", Opcode::Xor),
    (b"trunc", Opcode::Trunc),
    (b"zext", Opcode::ZExt),
    (b"sext", Opcode::SExt),
    (b"fptrunc", Opcode::FpTrunc),
    (b"fpext", Opcode::FpExt),
    (b"fptoui", Opcode::FpToUi),
    (b"fptosi", Opcode::FpToSi),
    (b"uitofp", Opcode::UiToFp),
    (b"sitofp", Opcode::SiToFp),
    (b"ptrtoint", Opcode::PtrToInt),
    (b"ptrtoaddr", Opcode::PtrToAddr),
    (b"inttoptr", Opcode::IntToPtr),
    (b"bitcast", Opcode::BitCast),
    (b"addrspacecast", Opcode::AddrSpaceCast),
];

/// The table's size (a power of two) in bits, and the hash's multiplier: no two words of
/// [`WORDS`] share a slot (checked by [`build`]).
const BITS: u32 = 8;
const MUL: u64 = 0x54e3_26ff_2c9f_da59;

/// A table slot: a word's two zero-padded little-endian words, its length (0: empty) and opcode.
#[derive(Copy, Clone)]
struct Entry {
    words: [u64; 2],
    len: u8,
    op: Opcode,
}

const EMPTY: Entry = Entry {
    words: [0; 2],
    len: 0,
    op: Opcode::Ret,
};

/// The slot of a word of `len` bytes whose first eight bytes, zero-padded, are `w0`.
#[inline(always)]
const fn slot(w0: u64, len: usize) -> usize {
    ((w0 ^ len as u64).wrapping_mul(MUL) >> (64 - BITS)) as usize
}

/// `b[from..to]` (at most eight bytes) as a zero-padded little-endian word, at compile time.
const fn const_word(b: &[u8], from: usize, to: usize) -> u64 {
    let mut w = 0u64;
    let mut i = from;
    while i < to {
        w |= (b[i] as u64) << (8 * (i - from));
        i += 1;
    }
    w
}

/// The table, built at compile time; a collision or a word longer than 16 bytes fails the build.
const fn build() -> [Entry; 1 << BITS] {
    let mut t = [EMPTY; 1 << BITS];
    let mut k = 0;
    while k < WORDS.len() {
        let (w, op) = WORDS[k];
        let n = w.len();
        assert!(n >= 1 && n <= 16, "opcode words have 1 to 16 bytes");
        let lo = if n < 8 { n } else { 8 };
        let words = [const_word(w, 0, lo), const_word(w, lo, n)];
        let i = slot(words[0], n);
        assert!(t[i].len == 0, "two opcode words share a slot: change MUL");
        t[i] = Entry {
            words,
            len: n as u8,
            op,
        };
        k += 1;
    }
    t
}

static TABLE: [Entry; 1 << BITS] = build();

/// The opcode the word `w` names (`None` for any other word).
#[cfg(test)]
pub(super) fn opcode(w: &[u8]) -> Option<Opcode> {
    opcode_at(w, 0, w.len())
}

/// The opcode the word `b[s..e]` names (`None` for any other word): the word read from the text
/// as two masked eight-byte loads where sixteen bytes follow its start (anywhere but the text's
/// last line), without a test of its length per byte.
#[inline]
pub(super) fn opcode_at(b: &[u8], s: usize, e: usize) -> Option<Opcode> {
    let n = e.wrapping_sub(s);
    if n.wrapping_sub(1) >= 16 {
        return None;
    }
    let words = match b.get(s..s + 16) {
        Some(w) => {
            let lo = u64::from_le_bytes(w[..8].try_into().unwrap_or([0; 8]));
            let hi = u64::from_le_bytes(w[8..].try_into().unwrap_or([0; 8]));
            let k = n.saturating_sub(8);
            let hi_mask = if k == 0 { 0 } else { u64::MAX >> (64 - 8 * k) };
            [lo & (u64::MAX >> (64 - 8 * n.min(8))), hi & hi_mask]
        }
        None => {
            let w = b.get(s..e)?;
            let lo = n.min(8);
            [exact_word(&w[..lo]), exact_word(&w[lo..])]
        }
    };
    let t = &TABLE[slot(words[0], n)];
    (t.len as usize == n && t.words == words).then_some(t.op)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::inst::simple_opcode;

    /// The table answers as the `match` it replaces on every opcode word, on each of them with
    /// a byte changed, dropped or added, cut short or run on, and on random words of the
    /// lexer's word bytes (the lines' first word is such a word).
    #[test]
    fn table_reads_as_the_match() {
        // NUL among them: a word differs from a shorter one by its length alone when it ends in
        // zero bytes (the lexer never makes such a word; the table is exact anyway).
        const BYTES: &[u8] = b"abcdefghijklmnopqrstuvwxyz_.-0123456789\0";
        let mut checked = 0usize;
        let mut found = 0usize;
        let mut tail = 0x9e37_79b9_7f4a_7c15u64;
        let mut check = |w: &[u8]| {
            let want = simple_opcode(w);
            let text = String::from_utf8_lossy(w);
            // At the end of the text, and followed by other bytes (the masked loads).
            assert_eq!(opcode(w), want, "{text:?}");
            tail = tail.rotate_left(7) ^ 0x5851_f42d_4c95_7f2d;
            let after = tail.to_le_bytes().repeat(3);
            let cut = (tail % 20) as usize;
            let b = [b"  ".as_slice(), w, &after[..cut]].concat();
            assert_eq!(
                opcode_at(&b, 2, 2 + w.len()),
                want,
                "{text:?} + {cut} bytes"
            );
            checked += 1;
            found += want.is_some() as usize;
        };
        for &(w, op) in WORDS.iter() {
            assert_eq!(opcode(w), Some(op));
            check(w);
            for i in 0..=w.len() {
                check(&w[..i]);
                check(&w[i..]);
                for &c in BYTES {
                    let mut v = w.to_vec();
                    if i < w.len() {
                        v[i] = c;
                        check(&v);
                        v.remove(i);
                        check(&v);
                    }
                    let mut v = w.to_vec();
                    v.insert(i, c);
                    check(&v);
                }
            }
            // Two words run together (`addrspacecast` and `add`, `extractelement` and more).
            for &(u, _) in WORDS.iter() {
                check(&[w, u].concat());
            }
        }
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let n = (x % 19) as usize;
            let w: Vec<u8> = (0..n)
                .map(|k| BYTES[((x >> (3 * k % 60)) % BYTES.len() as u64) as usize])
                .collect();
            check(&w);
        }
        assert!(
            checked > 250_000 && found > 500,
            "{checked} checked, {found} opcodes"
        );
    }
}
