//! Keyword tables of the grammar: linkages, calling conventions, words that start a value or end
//! an attribute list, and the opcode / predicate / ordering words.

use super::*;

pub(super) const LINKAGES: &[&str] = &[
    "private",
    "internal",
    "available_externally",
    "linkonce",
    "weak",
    "common",
    "appending",
    "extern_weak",
    "linkonce_odr",
    "weak_odr",
    "external",
];

pub(super) const CALL_CONVS: &[&str] = &[
    "fastcc",
    "coldcc",
    "cc",
    "webkit_jscc",
    "anyregcc",
    "preserve_mostcc",
    "preserve_allcc",
    "preserve_nonecc",
    "ghccc",
    "swiftcc",
    "swifttailcc",
    "x86_stdcallcc",
    "x86_fastcallcc",
    "x86_thiscallcc",
    "x86_vectorcallcc",
    "x86_regcallcc",
    "x86_intrcc",
    "x86_64_sysvcc",
    "win64cc",
    "arm_apcscc",
    "arm_aapcscc",
    "arm_aapcs_vfpcc",
    "aarch64_vector_pcs",
    "aarch64_sve_vector_pcs",
    "aarch64_sme_preservemost_from_x0",
    "aarch64_sme_preservemost_from_x1",
    "aarch64_sme_preservemost_from_x2",
    "msp430_intrcc",
    "avr_intrcc",
    "avr_signalcc",
    "ptx_kernel",
    "ptx_device",
    "spir_func",
    "spir_kernel",
    "intel_ocl_bicc",
    "hhvmcc",
    "hhvm_ccc",
    "cxx_fast_tlscc",
    "amdgpu_vs",
    "amdgpu_ls",
    "amdgpu_hs",
    "amdgpu_es",
    "amdgpu_gs",
    "amdgpu_ps",
    "amdgpu_cs",
    "amdgpu_cs_chain",
    "amdgpu_cs_chain_preserve",
    "amdgpu_kernel",
    "amdgpu_gfx",
    "amdgpu_gfx_whole_wave",
    "tailcc",
    "m68k_rtdcc",
    "graalcc",
    "riscv_vector_cc",
    "riscv_vls_cc",
    "cfguard_checkcc",
    "m68k_intrcc",
    "x86_amx_tilecc",
];

/// Words that begin a value rather than an attribute.
pub(super) const VALUE_WORDS: &[&str] = &[
    "true",
    "false",
    "null",
    "undef",
    "poison",
    "zeroinitializer",
    "none",
    "c",
    "asm",
    "blockaddress",
    "dso_local_equivalent",
    "no_cfi",
    "ptrauth",
    "splat",
    "getelementptr",
    "bitcast",
    "addrspacecast",
    "inttoptr",
    "ptrtoint",
    "ptrtoaddr",
    "trunc",
    "zext",
    "sext",
    "fptrunc",
    "fpext",
    "fptoui",
    "fptosi",
    "uitofp",
    "sitofp",
    "add",
    "sub",
    "mul",
    "shl",
    "lshr",
    "ashr",
    "and",
    "or",
    "xor",
    "udiv",
    "sdiv",
    "urem",
    "srem",
    "fadd",
    "fsub",
    "fmul",
    "fdiv",
    "frem",
    "fneg",
    "icmp",
    "fcmp",
    "select",
    "extractelement",
    "insertelement",
    "shufflevector",
    "extractvalue",
    "insertvalue",
];

/// Words that end an attribute list (they start the next part of the syntax).
pub(super) const NOT_ATTRS: &[&str] = &[
    "to",
    "unwind",
    "section",
    "partition",
    "comdat",
    "gc",
    "prefix",
    "prologue",
    "personality",
    "define",
    "declare",
    "attributes",
    "target",
    "source_filename",
    "module",
    "uselistorder",
    "uselistorder_bb",
    "unnamed_addr",
    "local_unnamed_addr",
    "addrspace",
    "within",
    "from",
    "ret",
    "br",
    "switch",
    "indirectbr",
    "invoke",
    "resume",
    "unreachable",
    "cleanupret",
    "catchret",
    "catchswitch",
    "callbr",
    "alloca",
    "load",
    "store",
    "fence",
    "cmpxchg",
    "atomicrmw",
    "phi",
    "call",
    "tail",
    "musttail",
    "notail",
    "va_arg",
    "landingpad",
    "catchpad",
    "cleanuppad",
    "freeze",
];

pub(super) fn is_type_word(w: &[u8]) -> bool {
    matches!(
        w,
        b"void"
            | b"half"
            | b"bfloat"
            | b"float"
            | b"double"
            | b"x86_fp80"
            | b"fp128"
            | b"ppc_fp128"
            | b"x86_amx"
            | b"x86_mmx"
            | b"ptr"
            | b"label"
            | b"token"
            | b"metadata"
            | b"target"
            | b"opaque"
    ) || (w.len() > 1 && w[0] == b'i' && w[1..].iter().all(u8::is_ascii_digit))
}

pub(super) fn cast_op(w: &[u8]) -> Option<Opcode> {
    Some(match w {
        b"trunc" => Opcode::Trunc,
        b"zext" => Opcode::ZExt,
        b"sext" => Opcode::SExt,
        b"fptrunc" => Opcode::FpTrunc,
        b"fpext" => Opcode::FpExt,
        b"fptoui" => Opcode::FpToUi,
        b"fptosi" => Opcode::FpToSi,
        b"uitofp" => Opcode::UiToFp,
        b"sitofp" => Opcode::SiToFp,
        b"ptrtoint" => Opcode::PtrToInt,
        b"ptrtoaddr" => Opcode::PtrToAddr,
        b"inttoptr" => Opcode::IntToPtr,
        b"bitcast" => Opcode::BitCast,
        b"addrspacecast" => Opcode::AddrSpaceCast,
        _ => return None,
    })
}

pub(super) fn bin_op(w: &[u8]) -> Option<Opcode> {
    Some(match w {
        b"add" => Opcode::Add,
        b"fadd" => Opcode::FAdd,
        b"sub" => Opcode::Sub,
        b"fsub" => Opcode::FSub,
        b"mul" => Opcode::Mul,
        b"fmul" => Opcode::FMul,
        b"udiv" => Opcode::UDiv,
        b"sdiv" => Opcode::SDiv,
        b"fdiv" => Opcode::FDiv,
        b"urem" => Opcode::URem,
        b"srem" => Opcode::SRem,
        b"frem" => Opcode::FRem,
        b"shl" => Opcode::Shl,
        b"lshr" => Opcode::LShr,
        b"ashr" => Opcode::AShr,
        b"and" => Opcode::And,
        b"or" => Opcode::Or,
        b"xor" => Opcode::Xor,
        _ => return None,
    })
}

pub(super) fn ipred(w: &[u8]) -> Option<IPred> {
    Some(match w {
        b"eq" => IPred::Eq,
        b"ne" => IPred::Ne,
        b"ugt" => IPred::Ugt,
        b"uge" => IPred::Uge,
        b"ult" => IPred::Ult,
        b"ule" => IPred::Ule,
        b"sgt" => IPred::Sgt,
        b"sge" => IPred::Sge,
        b"slt" => IPred::Slt,
        b"sle" => IPred::Sle,
        _ => return None,
    })
}

pub(super) fn fpred(w: &[u8]) -> Option<FPred> {
    Some(match w {
        b"false" => FPred::False,
        b"oeq" => FPred::Oeq,
        b"ogt" => FPred::Ogt,
        b"oge" => FPred::Oge,
        b"olt" => FPred::Olt,
        b"ole" => FPred::Ole,
        b"one" => FPred::One,
        b"ord" => FPred::Ord,
        b"ueq" => FPred::Ueq,
        b"ugt" => FPred::Ugt,
        b"uge" => FPred::Uge,
        b"ult" => FPred::Ult,
        b"ule" => FPred::Ule,
        b"une" => FPred::Une,
        b"uno" => FPred::Uno,
        b"true" => FPred::True,
        _ => return None,
    })
}

pub(super) fn rmw_op(w: &[u8]) -> Option<RmwOp> {
    Some(match w {
        b"xchg" => RmwOp::Xchg,
        b"add" => RmwOp::Add,
        b"sub" => RmwOp::Sub,
        b"and" => RmwOp::And,
        b"nand" => RmwOp::Nand,
        b"or" => RmwOp::Or,
        b"xor" => RmwOp::Xor,
        b"max" => RmwOp::Max,
        b"min" => RmwOp::Min,
        b"umax" => RmwOp::UMax,
        b"umin" => RmwOp::UMin,
        b"fadd" => RmwOp::FAdd,
        b"fsub" => RmwOp::FSub,
        b"fmax" => RmwOp::FMax,
        b"fmin" => RmwOp::FMin,
        b"fmaximum" => RmwOp::FMaximum,
        b"fminimum" => RmwOp::FMinimum,
        b"uinc_wrap" => RmwOp::UIncWrap,
        b"udec_wrap" => RmwOp::UDecWrap,
        b"usub_cond" => RmwOp::USubCond,
        b"usub_sat" => RmwOp::USubSat,
        _ => return None,
    })
}

pub(super) fn ordering(w: &[u8]) -> Option<Ordering> {
    Some(match w {
        b"unordered" => Ordering::Unordered,
        b"monotonic" => Ordering::Monotonic,
        b"acquire" => Ordering::Acquire,
        b"release" => Ordering::Release,
        b"acq_rel" => Ordering::AcqRel,
        b"seq_cst" => Ordering::SeqCst,
        _ => return None,
    })
}

/// The flag an instruction flag word sets (`nuw`, `nsw`, `exact`, `disjoint`, `nneg`, any
/// fast-math flag), shared by the token path (`inst_flags`) and the whole-line fast paths.
pub(super) fn flag_word(w: &[u8]) -> Option<u16> {
    Some(match w {
        b"nuw" => flags::NUW,
        b"nsw" => flags::NSW,
        b"exact" => flags::EXACT,
        b"disjoint" => flags::DISJOINT,
        b"nneg" => flags::NNEG,
        _ if is_fmf(w) => flags::FAST_MATH,
        _ => return None,
    })
}

pub(super) fn is_fmf(w: &[u8]) -> bool {
    matches!(
        w,
        b"fast" | b"nnan" | b"ninf" | b"nsz" | b"arcp" | b"contract" | b"afn" | b"reassoc"
    )
}
