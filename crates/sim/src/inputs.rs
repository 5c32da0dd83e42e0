//! Inputs of a run given by the user: kernel arguments and memory contents (buffers that pointer
//! parameters point at, initial contents of globals), and the textual syntax `converge simulate`
//! reads them in (docs/simulation.md, "Inputs"). Parsing lives here so every front end (the CLI,
//! the transform checker) reads the same syntax.

/// A kernel argument or a memory element.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum ArgValue {
    /// An integer (two's complement; truncated to the parameter's width).
    Int(i128),
    /// A floating-point number (rounded to the parameter's type).
    Float(f64),
}

/// The element type of a buffer given with `--mem`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ElemTy {
    /// An integer of this many bits (8, 16, 32, 64).
    Int(u32),
    /// `float` elements.
    F32,
    /// `double` elements.
    F64,
}

impl ElemTy {
    /// Bytes per element.
    pub fn size(self) -> u64 {
        match self {
            ElemTy::Int(w) => w.div_ceil(8) as u64,
            ElemTy::F32 => 4,
            ElemTy::F64 => 8,
        }
    }

    /// The element's little-endian bytes.
    pub fn bytes(self, v: ArgValue, out: &mut Vec<u8>) {
        match (self, v) {
            (ElemTy::Int(_), ArgValue::Int(x)) => {
                out.extend_from_slice(&x.to_le_bytes()[..self.size() as usize])
            }
            (ElemTy::Int(_), ArgValue::Float(x)) => {
                out.extend_from_slice(&(x as i128).to_le_bytes()[..self.size() as usize])
            }
            (ElemTy::F32, v) => out.extend_from_slice(&(num(v) as f32).to_le_bytes()),
            (ElemTy::F64, v) => out.extend_from_slice(&num(v).to_le_bytes()),
        }
    }
}

fn num(v: ArgValue) -> f64 {
    match v {
        ArgValue::Int(x) => x as f64,
        ArgValue::Float(x) => x,
    }
}

/// What a `--mem` entry fills.
#[derive(Clone, Debug, PartialEq)]
pub enum MemTarget {
    /// A global variable (by name, without `@`): its initial contents.
    Global(String),
    /// A pointer parameter (by position): it points at a fresh buffer of exactly these elements;
    /// accesses outside it are out of bounds.
    Param(usize),
    /// A pointer parameter by name (without `%`), resolved against the function's parameters.
    ParamNamed(String),
}

/// Memory contents given by the user.
#[derive(Clone, Debug, PartialEq)]
pub struct MemInit {
    /// The global or parameter filled.
    pub target: MemTarget,
    /// `None`: the element type of the global's array type (i32 for parameters).
    pub elem: Option<ElemTy>,
    /// The elements, in order from offset 0.
    pub values: Vec<ArgValue>,
}

/// One value: an integer (decimal, `-`, `0x` hex) or a float.
pub fn parse_value(a: &str) -> Result<ArgValue, String> {
    let a = a.trim();
    if let Ok(x) = a.parse::<i128>() {
        return Ok(ArgValue::Int(x));
    }
    if let Some(h) = a.strip_prefix("0x").or_else(|| a.strip_prefix("0X")) {
        return i128::from_str_radix(h, 16)
            .map(ArgValue::Int)
            .map_err(|_| format!("`{a}` is not a number"));
    }
    if let Some(h) = a.strip_prefix("-0x") {
        return i128::from_str_radix(h, 16)
            .map(|x| ArgValue::Int(-x))
            .map_err(|_| format!("`{a}` is not a number"));
    }
    match a.parse::<f64>() {
        Ok(x) => Ok(ArgValue::Float(x)),
        Err(_) => Err(format!("`{a}` is not a number")),
    }
}

/// Parses `TARGET=[TYPE:]v1,v2,...` where TARGET is `@global`, `%param` or `#k` (parameter
/// position from 0) and TYPE one of `i8 i16 i32 i64 f32 f64` (`float`, `double` accepted);
/// `v*N` repeats a value N times (at most 1<<20 elements in all).
pub fn parse_mem(spec: &str) -> Result<MemInit, String> {
    let (lhs, rhs) = spec.split_once('=').ok_or_else(|| {
        format!("`{spec}`: expected TARGET=VALUES (e.g. @buf=1,2,3 or #0=f32:1.5,2)")
    })?;
    let lhs = lhs.trim();
    let target = if let Some(g) = lhs.strip_prefix('@') {
        MemTarget::Global(g.to_string())
    } else if let Some(p) = lhs.strip_prefix('%') {
        MemTarget::ParamNamed(p.to_string())
    } else if let Some(k) = lhs.strip_prefix('#') {
        MemTarget::Param(
            k.parse()
                .map_err(|_| format!("`{lhs}`: expected #N, a parameter position"))?,
        )
    } else {
        return Err(format!(
            "`{lhs}`: a memory target is @global, %param or #N (parameter position)"
        ));
    };
    let (elem, vals) = match rhs.split_once(':') {
        Some((t, v)) => (
            Some(match t.trim() {
                "i8" => ElemTy::Int(8),
                "i16" => ElemTy::Int(16),
                "i32" => ElemTy::Int(32),
                "i64" => ElemTy::Int(64),
                "f32" | "float" => ElemTy::F32,
                "f64" | "double" => ElemTy::F64,
                t => return Err(format!("`{t}`: element types are i8 i16 i32 i64 f32 f64")),
            }),
            v,
        ),
        None => (None, rhs),
    };
    let mut values = Vec::new();
    for v in vals.split(',').filter(|v| !v.trim().is_empty()) {
        let (x, n) = match v.split_once('*') {
            Some((x, n)) => (
                x,
                n.trim()
                    .parse::<usize>()
                    .map_err(|_| format!("`{v}`: expected VALUE*COUNT"))?,
            ),
            None => (v, 1),
        };
        let x = parse_value(x)?;
        if values.len() + n > 1 << 20 {
            return Err(format!("`{lhs}`: more than {} elements", 1 << 20));
        }
        values.extend(std::iter::repeat_n(x, n));
    }
    Ok(MemInit {
        target,
        elem,
        values,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_syntax() {
        let m = parse_mem("@g=1,2,0x10").unwrap();
        assert_eq!(m.target, MemTarget::Global("g".into()));
        assert_eq!(m.elem, None);
        assert_eq!(
            m.values,
            vec![ArgValue::Int(1), ArgValue::Int(2), ArgValue::Int(16)]
        );
        let m = parse_mem("#1=f32:1.5*3").unwrap();
        assert_eq!(m.target, MemTarget::Param(1));
        assert_eq!(m.elem, Some(ElemTy::F32));
        assert_eq!(m.values, vec![ArgValue::Float(1.5); 3]);
        assert_eq!(
            parse_mem("%out=i64:").unwrap().target,
            MemTarget::ParamNamed("out".into())
        );
        assert!(parse_mem("g=1").is_err());
        assert!(parse_mem("@g=x").is_err());
        assert!(parse_mem("@g=i7:1").is_err());
        assert!(parse_mem("@g").is_err());
    }
}
