//! `float`/`double` constants in LLVM's decimal spelling, digit for digit.
//!
//! LLVM's writer prints a `float` or `double` constant as `d.dddddde±XX` only if that text reads
//! back to the same value, and otherwise as 16 hex digits. The text is not `printf("%e")`: LLVM's
//! `APFloat::toString(6, 0)` first *truncates* the exact decimal expansion to the digits that fit
//! in 20 bits, and only then rounds (half up) to 6 significant digits. So `0.94`
//! (`0x3FEE147AE147AE14`, exactly 0.939999999999999946…) comes out as `9.399990e-01`, which does
//! not read back, and LLVM prints it in hex, while `0.3` comes out as `3.000000e-01`. A correctly
//! rounded `%e` would print `9.400000e-01` for both, which is a different constant for LLVM's
//! check and a different text than `opt -S`'s; this module reproduces the truncation with a small
//! big-integer (the exact expansion of a double needs up to ~2500 bits).

/// Little-endian base-2^32 natural number, just the operations the conversion needs.
struct Nat(Vec<u32>);

impl Nat {
    fn from_u64(x: u64) -> Nat {
        let mut n = Nat(vec![x as u32, (x >> 32) as u32]);
        n.trim();
        n
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    fn bits(&self) -> u32 {
        match self.0.last() {
            None => 0,
            Some(&top) => (self.0.len() as u32 - 1) * 32 + (32 - top.leading_zeros()),
        }
    }

    fn mul_small(&mut self, k: u32) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let v = *limb as u64 * k as u64 + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
    }

    fn shl(&mut self, s: u32) {
        let (words, bits) = ((s / 32) as usize, s % 32);
        if bits != 0 {
            self.mul_small(1 << bits);
        }
        self.0.splice(0..0, std::iter::repeat_n(0, words));
    }

    /// Divides in place by `k` (non-zero); returns the remainder.
    fn div_small(&mut self, k: u32) -> u32 {
        let mut rem = 0u64;
        for limb in self.0.iter_mut().rev() {
            let v = (rem << 32) | *limb as u64;
            *limb = (v / k as u64) as u32;
            rem = v % k as u64;
        }
        self.trim();
        rem as u32
    }
}

/// LLVM's `APFloat::toString(Str, 6, 0, false)` of a finite, non-zero value `x`.
fn to_string_6(x: f64) -> String {
    const PRECISION: usize = 6;
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    let (mut mant, mut exp) = if biased == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), biased - 1075)
    };
    let tz = mant.trailing_zeros();
    mant >>= tz;
    exp += tz as i32;
    // The significand as an integer times a power of ten.
    let mut n = Nat::from_u64(mant);
    if exp > 0 {
        n.shl(exp as u32);
        exp = 0;
    } else {
        // N * 2^-e == N * 5^e * 10^-e.
        let mut e = -exp;
        while e >= 13 {
            n.mul_small(1_220_703_125); // 5^13
            e -= 13;
        }
        for _ in 0..e {
            n.mul_small(5);
        }
    }
    // Truncate to the decimal digits that fit the precision's bit budget (196/59 ≈ log2 10).
    let required = (PRECISION as u32 * 196).div_ceil(59);
    let have = n.bits();
    if have > required {
        let tens = (have - required) * 59 / 196;
        exp += tens as i32;
        for _ in 0..tens {
            n.div_small(10);
        }
    }
    // Digits, least significant first, without trailing zeros.
    let mut digits: Vec<u8> = Vec::new();
    let mut in_trail = true;
    while !n.is_zero() {
        let d = n.div_small(10) as u8;
        if in_trail && d == 0 {
            exp += 1;
        } else {
            digits.push(b'0' + d);
            in_trail = false;
        }
    }
    // Round half up to the precision.
    if digits.len() > PRECISION {
        let mut first = digits.len() - PRECISION;
        if digits[first - 1] < b'5' {
            while first < digits.len() && digits[first] == b'0' {
                first += 1;
            }
            exp += first as i32;
            digits.drain(..first);
        } else {
            let len = digits.len();
            let mut i = first;
            while i < len {
                if digits[i] == b'9' {
                    first += 1;
                    i += 1;
                } else {
                    digits[i] += 1;
                    break;
                }
            }
            exp += first as i32;
            if first == len {
                digits = vec![b'1'];
            } else {
                digits.drain(..first);
            }
        }
    }
    let nd = digits.len();
    let exp10 = exp + nd as i32 - 1;
    let mut s = String::with_capacity(16);
    if x.is_sign_negative() {
        s.push('-');
    }
    s.push(digits[nd - 1] as char);
    s.push('.');
    for k in 1..nd {
        s.push(digits[nd - 1 - k] as char);
    }
    for _ in 0..(PRECISION + 1 - nd) {
        s.push('0');
    }
    s.push('e');
    s.push(if exp10 < 0 { '-' } else { '+' });
    let _ = std::fmt::Write::write_fmt(&mut s, format_args!("{:02}", exp10.unsigned_abs()));
    s
}

/// The decimal text LLVM prints for a `float`/`double` constant of value `x` (a `float` widened
/// exactly), or `None` when LLVM prints hex (the decimal text would not read back, or `x` is an
/// infinity or a NaN).
pub(crate) fn llvm_decimal(x: f64) -> Option<String> {
    if !x.is_finite() {
        return None;
    }
    if x == 0.0 {
        return Some(if x.is_sign_negative() {
            "-0.000000e+00".to_string()
        } else {
            "0.000000e+00".to_string()
        });
    }
    let text = to_string_6(x);
    let back: f64 = text.parse().ok()?;
    (back == x).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::llvm_decimal;

    /// Expected texts are what `opt -S` of LLVM 19 prints for these constants (measured).
    #[test]
    fn decimal_or_hex_as_llvm() {
        let cases: &[(f64, Option<&str>)] = &[
            (0.94, None),
            (0.5, Some("5.000000e-01")),
            (0.1, Some("1.000000e-01")),
            (0.3, Some("3.000000e-01")),
            (1.25, Some("1.250000e+00")),
            (3.0e10, Some("3.000000e+10")),
            (1.5e-7, Some("1.500000e-07")),
            (123456.0, Some("1.234560e+05")),
            (1234567.0, None),
            (100.0, Some("1.000000e+02")),
            (-2.5, Some("-2.500000e+00")),
            (0.0, Some("0.000000e+00")),
            (-0.0, Some("-0.000000e+00")),
            (1.0e300, Some("1.000000e+300")),
            (4.9e-324, Some("4.940660e-324")),
            (f32::from_bits(0x3DCC_CCCD) as f64, None),
            (0.125f32 as f64, Some("1.250000e-01")),
        ];
        for &(x, want) in cases {
            assert_eq!(llvm_decimal(x).as_deref(), want, "{x:e}");
        }
    }
}
