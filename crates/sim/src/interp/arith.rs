//! Arithmetic on runtime values: integer and float binary operators, comparisons, lane-wise vector
//! operations, `atomicrmw` operations, half-precision decoding.

use super::*;

pub(crate) fn half_to_f64(h: u16) -> f64 {
    let s = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 0x1F) as i32;
    let m = (h & 0x3FF) as f64;
    s * match e {
        0 => m * 2f64.powi(-24),
        31 => {
            if m == 0.0 {
                f64::INFINITY
            } else {
                f64::NAN
            }
        }
        _ => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

pub(crate) fn fval(v: &Val) -> f64 {
    match v {
        Val::F(f) => *f,
        Val::I(x) => *x as f64,
        _ => 0.0,
    }
}

pub(crate) fn lanewise1(a: &Val, f: &dyn Fn(u128) -> Val) -> Val {
    match a {
        Val::Agg(xs) => Val::Agg(Rc::from(
            xs.iter().map(|x| lanewise1(x, f)).collect::<Vec<_>>(),
        )),
        Val::Undef => Val::Undef,
        x => f(x.bits()),
    }
}

pub(crate) fn lanewise2(a: &Val, b: &Val, f: impl Fn(u128, u128) -> Val + Copy) -> Val {
    match (a, b) {
        (Val::Agg(xs), Val::Agg(ys)) => Val::Agg(Rc::from(
            xs.iter()
                .zip(ys.iter())
                .map(|(x, y)| lanewise2(x, y, f))
                .collect::<Vec<_>>(),
        )),
        (Val::Undef, _) | (_, Val::Undef) => Val::Undef,
        (x, y) => f(x.bits(), y.bits()),
    }
}

pub(crate) fn lanewise_f(a: &Val, f: impl Fn(f64) -> f64 + Copy) -> Val {
    match a {
        Val::Agg(xs) => Val::Agg(Rc::from(
            xs.iter().map(|x| lanewise_f(x, f)).collect::<Vec<_>>(),
        )),
        Val::F(x) => Val::F(f(*x)),
        _ => Val::Undef,
    }
}

pub(crate) fn cmp_lanes(a: &Val, b: &Val, f: impl Fn(&Val, &Val) -> Val + Copy) -> Val {
    match (a, b) {
        (Val::Agg(xs), Val::Agg(ys)) => Val::Agg(Rc::from(
            xs.iter()
                .zip(ys.iter())
                .map(|(x, y)| cmp_lanes(x, y, f))
                .collect::<Vec<_>>(),
        )),
        (x, y) => f(x, y),
    }
}

/// The new value of an `atomicrmw` (operation as [`converge_ir::RmwOp`] `u8`).
pub(crate) fn rmw(op: u8, old: &Val, x: &Val, w: u32) -> Val {
    use converge_ir::RmwOp as R;
    const OPS: [R; 9] = [
        R::Xchg,
        R::Add,
        R::Sub,
        R::And,
        R::Nand,
        R::Or,
        R::Xor,
        R::Max,
        R::Min,
    ];
    let m = mask(w);
    let (a, b) = (old.bits() & m, x.bits() & m);
    match OPS.get(op as usize) {
        Some(R::Xchg) | None => x.clone(),
        Some(R::Add) => Val::I(a.wrapping_add(b) & m),
        Some(R::Sub) => Val::I(a.wrapping_sub(b) & m),
        Some(R::And) => Val::I(a & b),
        Some(R::Nand) => Val::I(!(a & b) & m),
        Some(R::Or) => Val::I(a | b),
        Some(R::Xor) => Val::I(a ^ b),
        Some(R::Max) => Val::I(if sext(a, w) >= sext(b, w) { a } else { b }),
        Some(_) => Val::I(if sext(a, w) <= sext(b, w) { a } else { b }),
    }
}

/// Integer and float binary operators; `None` for an opcode that is not one.
pub(crate) fn binop(op: Opcode, a: &Val, b: &Val, w: u32, f32t: bool) -> Option<Val> {
    if let (Val::Agg(xs), Val::Agg(ys)) = (a, b) {
        return Some(Val::Agg(Rc::from(
            xs.iter()
                .zip(ys.iter())
                .map(|(x, y)| binop(op, x, y, w, f32t).unwrap_or(Val::Undef))
                .collect::<Vec<_>>(),
        )));
    }
    if a.is_undef() || b.is_undef() {
        return Some(Val::Undef);
    }
    let m = mask(w);
    let (x, y) = (a.bits() & m, b.bits() & m);
    let fl = |r: f64| Val::F(if f32t { r as f32 as f64 } else { r });
    Some(match op {
        Opcode::Add => Val::I(x.wrapping_add(y) & m),
        Opcode::Sub => Val::I(x.wrapping_sub(y) & m),
        Opcode::Mul => Val::I(x.wrapping_mul(y) & m),
        Opcode::UDiv => x.checked_div(y).map_or(Val::Undef, Val::I),
        Opcode::URem => x.checked_rem(y).map_or(Val::Undef, Val::I),
        Opcode::SDiv | Opcode::SRem => {
            let (sx, sy) = (sext(x, w), sext(y, w));
            if sy == 0 || (sy == -1 && sx == sext(1u128 << (w.min(128) - 1), w)) {
                Val::Undef
            } else if op == Opcode::SDiv {
                Val::I((sx / sy) as u128 & m)
            } else {
                Val::I((sx % sy) as u128 & m)
            }
        }
        Opcode::Shl => {
            if y >= w as u128 {
                Val::Undef
            } else {
                Val::I((x << y) & m)
            }
        }
        Opcode::LShr => {
            if y >= w as u128 {
                Val::Undef
            } else {
                Val::I(x >> y)
            }
        }
        Opcode::AShr => {
            if y >= w as u128 {
                Val::Undef
            } else {
                Val::I((sext(x, w) >> y) as u128 & m)
            }
        }
        Opcode::And => Val::I(x & y),
        Opcode::Or => Val::I(x | y),
        Opcode::Xor => Val::I(x ^ y),
        Opcode::FAdd => fl(fval(a) + fval(b)),
        Opcode::FSub => fl(fval(a) - fval(b)),
        Opcode::FMul => fl(fval(a) * fval(b)),
        Opcode::FDiv => fl(fval(a) / fval(b)),
        Opcode::FRem => fl(fval(a) % fval(b)),
        _ => return None,
    })
}

pub(crate) fn icmp_raw(pred: u8, x: u128, y: u128, w: u32) -> bool {
    let m = mask(w);
    let (x, y) = (x & m, y & m);
    let (sx, sy) = (sext(x, w), sext(y, w));
    const P: [IPred; 10] = [
        IPred::Eq,
        IPred::Ne,
        IPred::Ugt,
        IPred::Uge,
        IPred::Ult,
        IPred::Ule,
        IPred::Sgt,
        IPred::Sge,
        IPred::Slt,
        IPred::Sle,
    ];
    match P.get(pred as usize).copied().unwrap_or(IPred::Eq) {
        IPred::Eq => x == y,
        IPred::Ne => x != y,
        IPred::Ugt => x > y,
        IPred::Uge => x >= y,
        IPred::Ult => x < y,
        IPred::Ule => x <= y,
        IPred::Sgt => sx > sy,
        IPred::Sge => sx >= sy,
        IPred::Slt => sx < sy,
        IPred::Sle => sx <= sy,
    }
}

pub(crate) fn fcmp_raw(pred: u8, a: f64, b: f64) -> bool {
    let uno = a.is_nan() || b.is_nan();
    const P: [FPred; 16] = [
        FPred::False,
        FPred::Oeq,
        FPred::Ogt,
        FPred::Oge,
        FPred::Olt,
        FPred::Ole,
        FPred::One,
        FPred::Ord,
        FPred::Ueq,
        FPred::Ugt,
        FPred::Uge,
        FPred::Ult,
        FPred::Ule,
        FPred::Une,
        FPred::Uno,
        FPred::True,
    ];
    match P.get(pred as usize).copied().unwrap_or(FPred::False) {
        FPred::False => false,
        FPred::Oeq => !uno && a == b,
        FPred::Ogt => !uno && a > b,
        FPred::Oge => !uno && a >= b,
        FPred::Olt => !uno && a < b,
        FPred::Ole => !uno && a <= b,
        FPred::One => !uno && a != b,
        FPred::Ord => !uno,
        FPred::Ueq => uno || a == b,
        FPred::Ugt => uno || a > b,
        FPred::Uge => uno || a >= b,
        FPred::Ult => uno || a < b,
        FPred::Ule => uno || a <= b,
        FPred::Une => uno || a != b,
        FPred::Uno => uno,
        FPred::True => true,
    }
}

/// Why an integer division of `a` by `b` is undefined behaviour, if it is: a zero divisor, or the
/// signed overflow of `MIN / -1` (lane-wise for vectors; an `undef` operand is not reported).
pub(crate) fn division_fault(op: Opcode, a: &Val, b: &Val, w: u32) -> Option<&'static str> {
    if !matches!(
        op,
        Opcode::UDiv | Opcode::SDiv | Opcode::URem | Opcode::SRem
    ) {
        return None;
    }
    match (a, b) {
        (Val::Agg(xs), Val::Agg(ys)) => xs
            .iter()
            .zip(ys.iter())
            .find_map(|(x, y)| division_fault(op, x, y, w)),
        (_, Val::Undef) | (_, Val::Agg(_)) => None,
        (x, y) => {
            let m = mask(w);
            let (x, y) = (x.bits() & m, y.bits() & m);
            if y == 0 {
                Some("division by zero")
            } else if matches!(op, Opcode::SDiv | Opcode::SRem)
                && sext(y, w) == -1
                && w > 0
                && x == 1u128 << (w.min(128) - 1)
            {
                Some("signed division overflow")
            } else {
                None
            }
        }
    }
}
