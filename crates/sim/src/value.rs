//! Runtime values of the interpreter and the arithmetic on them.

use std::rc::Rc;

/// A runtime value. Integers are kept masked to their width; `f32` values are stored as the `f64`
/// they convert to exactly (and rounded back on every operation).
#[derive(Clone, Debug)]
pub enum Val {
    /// An integer, masked to its type's width.
    I(u128),
    /// A floating-point value (`f32` kept as the `f64` it converts to exactly).
    F(f64),
    /// A pointer: a byte address in the simulator's memory.
    P(u64),
    /// A convergence token: the class of the instance that produced it.
    Tok(u32),
    /// `undef` or `poison`: equal to anything (any refinement may pick that value).
    Undef,
    /// Vectors, arrays and structs.
    Agg(Rc<[Val]>),
}

impl Val {
    /// Equality for the uniformity check: `undef` matches anything, floats compare by bits.
    pub fn same(&self, o: &Val) -> bool {
        match (self, o) {
            (Val::Undef, _) | (_, Val::Undef) => true,
            (Val::I(a), Val::I(b)) => a == b,
            (Val::F(a), Val::F(b)) => a.to_bits() == b.to_bits(),
            (Val::P(a), Val::P(b)) => a == b,
            (Val::I(a), Val::P(b)) | (Val::P(b), Val::I(a)) => *a == *b as u128,
            (Val::Tok(a), Val::Tok(b)) => a == b,
            (Val::Agg(a), Val::Agg(b)) => {
                a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.same(y))
            }
            _ => false,
        }
    }

    /// Strict equality: `undef` equals only `undef`.
    pub fn identical(&self, o: &Val) -> bool {
        match (self, o) {
            (Val::Undef, Val::Undef) => true,
            (Val::Undef, _) | (_, Val::Undef) => false,
            (Val::Agg(a), Val::Agg(b)) => {
                a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.identical(y))
            }
            _ => self.same(o),
        }
    }

    /// The value as an unsigned integer (pointers by address, floats by bits, undef as 0).
    pub fn bits(&self) -> u128 {
        match self {
            Val::I(x) => *x,
            Val::P(p) => *p as u128,
            Val::F(f) => f.to_bits() as u128,
            Val::Tok(t) => *t as u128,
            Val::Undef => 0,
            Val::Agg(xs) => xs.iter().fold(0u128, |a, x| a.rotate_left(17) ^ x.bits()),
        }
    }

    /// Whether the value is `undef`/`poison`.
    pub fn is_undef(&self) -> bool {
        matches!(self, Val::Undef)
    }

    /// Renders for reports: integers in decimal, floats with `{:?}`, pointers in hex.
    pub fn render(&self) -> String {
        match self {
            Val::I(x) => x.to_string(),
            Val::F(f) => format!("{f:?}"),
            Val::P(p) => format!("0x{p:x}"),
            Val::Tok(t) => format!("token#{t}"),
            Val::Undef => "undef".to_string(),
            Val::Agg(xs) => {
                let parts: Vec<String> = xs.iter().map(Val::render).collect();
                format!("<{}>", parts.join(", "))
            }
        }
    }
}

/// The mask of the low `w` bits (all bits for `w >= 128`).
#[inline]
pub fn mask(w: u32) -> u128 {
    if w >= 128 {
        u128::MAX
    } else {
        (1u128 << w) - 1
    }
}

/// Sign-extends the low `w` bits of `x` to i128.
#[inline]
pub fn sext(x: u128, w: u32) -> i128 {
    if w == 0 || w >= 128 {
        return x as i128;
    }
    let s = 128 - w;
    ((x << s) as i128) >> s
}

/// SplitMix64 finaliser: the interpreter's deterministic "unknown value" source.
#[inline]
pub fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Combines a hash state with one more word.
#[inline]
pub fn mix2(a: u64, b: u64) -> u64 {
    mix(a ^ b.wrapping_mul(0xA24B_AED4_963E_E407))
}
