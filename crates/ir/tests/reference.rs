//! Differential tests of the reader against LLVM, live, on every input we have: the LLVM test
//! corpus, our own feature modules (`tests/data/*.ll`), the OpenCL C kernels of
//! `examples/kernels/` compiled by clang 19 for AMDGPU and NVPTX at -O0 and -O3, and two modules
//! of the benchmark generator (`converge_gen::module`).
//!
//! - `counts_match_llvm_instcount`: defined functions, basic blocks and instructions of each opcode
//!   equal LLVM 22's `opt -passes=instcount -stats` counts.
//! - `printing_and_predecessor_order_match_opt`: on `opt -S` (LLVM 22) text, `inst_text_module_into`
//!   (`inst_text` with whole-module numbering) of every instruction reproduces its lines exactly, result names match `value_name`, and every operand's
//!   `value_name` appears in the line; on the original input, `Function::cfg()` gives each block the
//!   predecessors (LLVM's use-list order) that opt prints in its `; preds = ...` comments.

use converge_graph::{Block, Graph};
use converge_ir::{LocalName, Module, Opcode};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const CLANG_TARGETS: &[(&str, &[&str])] = &[
    (
        "amdgcn",
        &["--target=amdgcn-amd-amdhsa", "-mcpu=gfx90a", "-nogpulib"],
    ),
    (
        "nvptx64",
        &[
            "--target=nvptx64-nvidia-cuda",
            "-march=sm_70",
            "-Xclang",
            "-target-feature",
            "-Xclang",
            "+ptx70",
        ],
    ),
];

/// Compiles `examples/kernels/*.cl` into `build/ir-tests/clang/` (once per test process).
fn clang_outputs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Some(clang) = converge_gen::reference::clang19("reader on clang kernels") else {
        return out;
    };
    let root = converge_gen::reference::repo_root();
    let dir = root.join("build/ir-tests/clang");
    let _ = std::fs::create_dir_all(&dir);
    let Ok(rd) = std::fs::read_dir(root.join("examples/kernels")) else {
        return out;
    };
    let mut srcs: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "cl"))
        .collect();
    srcs.sort();
    for src in &srcs {
        for (tname, flags) in CLANG_TARGETS {
            for level in ["-O0", "-O3"] {
                let stem = src.file_stem().unwrap().to_string_lossy();
                let dst = dir.join(format!("{stem}.{tname}{level}.ll"));
                let ok = std::process::Command::new(&clang)
                    .args(["-x", "cl", "-cl-std=CL2.0"])
                    .args(*flags)
                    .arg(level)
                    .args(["-S", "-emit-llvm", "-o"])
                    .arg(&dst)
                    .arg(src)
                    .output()
                    .is_ok_and(|o| o.status.success());
                if ok {
                    out.push(dst);
                } else {
                    eprintln!(
                        "note: clang could not compile {} for {tname} {level}",
                        src.display()
                    );
                }
            }
        }
    }
    out
}

/// Two ~1 MB modules from the benchmark generator (`converge_gen::module`), one per target.
fn generated() -> Vec<PathBuf> {
    use converge_gen::module::{GpuTarget, ModuleSpec, generate};
    let dir = converge_gen::reference::repo_root().join("build/ir-tests/gen");
    let _ = std::fs::create_dir_all(&dir);
    let mut out = Vec::new();
    for (seed, target, name) in [
        (11, GpuTarget::Amdgpu, "gen-amdgpu.ll"),
        (12, GpuTarget::Nvptx, "gen-nvptx.ll"),
    ] {
        let text = generate(&ModuleSpec {
            seed,
            target,
            bytes: 1 << 20,
            regions: 24,
        });
        let p = dir.join(name);
        if std::fs::write(&p, text).is_ok() {
            out.push(p);
        }
    }
    out
}

fn inputs() -> &'static [PathBuf] {
    static INPUTS: OnceLock<Vec<PathBuf>> = OnceLock::new();
    INPUTS.get_or_init(|| {
        let mut v = Vec::new();
        v.extend(converge_gen::reference::ll_files(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data"),
        ));
        if let Some(c) = converge_gen::reference::corpus("reader differential tests") {
            v.extend(converge_gen::reference::ll_files(&c));
        }
        v.extend(clang_outputs());
        v.extend(generated());
        v
    })
}

/// LLVM's opcode names as `instcount` prints them (`Number of Br insts`: the instruction class names).
fn llvm_opcode_name(op: Opcode) -> &'static str {
    use Opcode::*;
    match op {
        Ret => "Ret",
        Br => "Br",
        Switch => "Switch",
        IndirectBr => "IndirectBr",
        Invoke => "Invoke",
        Resume => "Resume",
        Unreachable => "Unreachable",
        CleanupRet => "CleanupRet",
        CatchRet => "CatchRet",
        CatchSwitch => "CatchSwitch",
        CallBr => "CallBr",
        FNeg => "FNeg",
        Add => "Add",
        FAdd => "FAdd",
        Sub => "Sub",
        FSub => "FSub",
        Mul => "Mul",
        FMul => "FMul",
        UDiv => "UDiv",
        SDiv => "SDiv",
        FDiv => "FDiv",
        URem => "URem",
        SRem => "SRem",
        FRem => "FRem",
        Shl => "Shl",
        LShr => "LShr",
        AShr => "AShr",
        And => "And",
        Or => "Or",
        Xor => "Xor",
        ExtractElement => "ExtractElement",
        InsertElement => "InsertElement",
        ShuffleVector => "ShuffleVector",
        ExtractValue => "ExtractValue",
        InsertValue => "InsertValue",
        Alloca => "Alloca",
        Load => "Load",
        Store => "Store",
        Fence => "Fence",
        CmpXchg => "AtomicCmpXchg",
        AtomicRmw => "AtomicRMW",
        GetElementPtr => "GetElementPtr",
        Trunc => "Trunc",
        ZExt => "ZExt",
        SExt => "SExt",
        FpTrunc => "FPTrunc",
        FpExt => "FPExt",
        FpToUi => "FPToUI",
        FpToSi => "FPToSI",
        UiToFp => "UIToFP",
        SiToFp => "SIToFP",
        PtrToInt => "PtrToInt",
        PtrToAddr => "PtrToAddr",
        IntToPtr => "IntToPtr",
        BitCast => "BitCast",
        AddrSpaceCast => "AddrSpaceCast",
        ICmp => "ICmp",
        FCmp => "FCmp",
        Phi => "PHI",
        Select => "Select",
        Freeze => "Freeze",
        Call => "Call",
        VaArg => "VAArg",
        LandingPad => "LandingPad",
        CatchPad => "CatchPad",
        CleanupPad => "CleanupPad",
    }
}

/// Our counts, keyed like LLVM's statistics.
fn our_counts(m: &Module) -> BTreeMap<String, u64> {
    let mut c = BTreeMap::new();
    for f in &m.functions {
        if f.is_declaration {
            continue;
        }
        *c.entry("non-external functions".to_string()).or_default() += 1;
        *c.entry("basic blocks".to_string()).or_default() += f.blocks.len() as u64;
        for i in &f.insts {
            *c.entry(format!("{} insts", llvm_opcode_name(i.op)))
                .or_default() += 1;
            *c.entry("instructions (of all types)".to_string())
                .or_default() += 1;
        }
    }
    c
}

/// `opt -passes=instcount -stats` counts of a module text, or `None` if opt rejects it.
fn llvm_counts(opt: &Path, text: &str) -> Option<BTreeMap<String, u64>> {
    let o = converge_gen::reference::run_opt(
        opt,
        &["-passes=instcount", "-stats", "-disable-output"],
        text,
    );
    if !o.success {
        return None;
    }
    let mut c = BTreeMap::new();
    for line in o.stderr.lines() {
        let Some((n, rest)) = line.trim().split_once(" instcount - Number of ") else {
            continue;
        };
        if let Ok(n) = n.trim().parse::<u64>() {
            c.insert(rest.trim().to_string(), n);
        }
    }
    Some(c)
}

fn canonical(opt: &Path, file: &Path) -> Option<String> {
    let o = std::process::Command::new(opt)
        .arg("-S")
        .arg(file)
        .output()
        .ok()?;
    o.status
        .success()
        .then(|| String::from_utf8_lossy(&o.stdout).into_owned())
}

/// The `; preds = %a, %b` comment of each block label line, in block order (`None` for no comment).
fn printed_preds(text: &str) -> Vec<Vec<Vec<String>>> {
    let mut funcs = Vec::new();
    let mut cur: Option<Vec<Vec<String>>> = None;
    for line in text.lines() {
        if line.starts_with("define ") {
            cur = Some(Vec::new());
            continue;
        }
        if line == "}" {
            if let Some(c) = cur.take() {
                funcs.push(c);
            }
            continue;
        }
        let Some(c) = cur.as_mut() else { continue };
        if line.starts_with("  ") && c.is_empty() {
            // The unnamed entry block has no label line.
            c.push(Vec::new());
        }
        if !line.starts_with(' ') && !line.is_empty() && !line.starts_with(';') {
            // A block label line.
            let preds = match line.split_once("; preds = ") {
                Some((_, p)) => p.split(", ").map(|s| s.trim().to_string()).collect(),
                None => Vec::new(),
            };
            c.push(preds);
        }
    }
    funcs
}

fn check_file(opt: &Path, file: &Path, failures: &mut Vec<String>) -> bool {
    let Some(canon) = canonical(opt, file) else {
        return false;
    };
    let name = file.display().to_string();
    let m: Module = match converge_ir::parse(&name, canon.clone()) {
        Ok(m) => m,
        Err(d) => {
            failures.push(format!(
                "canonical text not read:\n{}",
                d.render(&name, &canon)
            ));
            return true;
        }
    };
    // inst_text is the identity on canonical text; value names match.
    for f in m.func_ids() {
        let func = m.func(f);
        for i in 0..func.insts.len() {
            let i = converge_ir::InstId(i as u32);
            let span = func.inst_span(i);
            let start = canon[..span.start as usize]
                .rfind('\n')
                .map_or(0, |p| p + 1);
            let expected = &canon[start..span.end as usize];
            // `opt -S` numbers attribute groups and metadata over the whole module.
            let mut got = String::new();
            m.inst_text_module_into(&mut got, f, i);
            if got != expected {
                failures.push(format!(
                    "{name}: inst_text\n  got:      {got:?}\n  expected: {expected:?}"
                ));
            }
            if func.inst(i).name() != LocalName::None {
                let vn = m.value_name(f, converge_ir::Value::Inst(i));
                if !expected.trim_start().starts_with(&format!("{vn} = ")) {
                    failures.push(format!("{name}: value_name {vn:?} for {expected:?}"));
                }
            }
            for &v in func.operands(i) {
                if matches!(v, converge_ir::Value::Meta(_)) {
                    continue;
                }
                let vn = m.value_name(f, v);
                if !expected.contains(&vn) {
                    failures.push(format!("{name}: operand {vn:?} not in {expected:?}"));
                }
            }
        }
    }
    // Predecessor order of the original file against opt's `; preds` comments.
    let text = std::fs::read_to_string(file).unwrap();
    let orig = match converge_ir::parse(&name, text.clone()) {
        Ok(m) => m,
        Err(d) => {
            failures.push(d.render(&name, &text));
            return true;
        }
    };
    let printed = printed_preds(&canon);
    let defs: Vec<_> = orig
        .func_ids()
        .filter(|f| !orig.func(*f).is_declaration)
        .collect();
    if defs.len() != printed.len() {
        failures.push(format!(
            "{name}: {} definitions, opt printed {}",
            defs.len(),
            printed.len()
        ));
        return true;
    }
    for (f, blocks) in defs.into_iter().zip(printed) {
        let cfg = orig.func(f).cfg();
        if cfg.num_blocks() != blocks.len() {
            failures.push(format!(
                "{name}: @{}: {} blocks, opt printed {}",
                orig.str(orig.func(f).name),
                cfg.num_blocks(),
                blocks.len()
            ));
            continue;
        }
        for (b, want) in blocks.iter().enumerate() {
            let got: Vec<String> = cfg
                .preds(Block(b as u32))
                .iter()
                .map(|p| orig.block_operand(f, *p))
                .collect();
            // opt prints each predecessor once per use; the entry block has no label line when unnamed.
            if &got != want {
                failures.push(format!(
                    "{name}: @{} block {b}: preds {got:?}, opt printed {want:?}",
                    orig.str(orig.func(f).name)
                ));
            }
        }
    }
    true
}

#[test]
fn counts_match_llvm_instcount() {
    let what = "counts_match_llvm_instcount";
    let Some(opt) = converge_gen::reference::opt22(what) else {
        return;
    };
    let mut failures = Vec::new();
    let mut checked = 0;
    for file in inputs() {
        // `instcount` skips `optnone` functions (clang -O0 output): count them too.
        let text = std::fs::read_to_string(file)
            .unwrap()
            .replace(" optnone", "");
        let Some(want) = llvm_counts(&opt, &text) else {
            continue;
        };
        let name = file.display().to_string();
        match converge_ir::parse(&name, text.clone()) {
            Ok(m) => {
                checked += 1;
                let got = our_counts(&m);
                if got != want {
                    failures.push(format!("{name}:\n  ours: {got:?}\n  llvm: {want:?}"));
                }
            }
            Err(d) => failures.push(d.render(&name, &text)),
        }
    }
    eprintln!(
        "instcount: {checked} of {} inputs compared with LLVM 22",
        inputs().len()
    );
    assert!(checked > 40, "only {checked} inputs compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn printing_and_predecessor_order_match_opt() {
    let what = "printing_and_predecessor_order_match_opt";
    let Some(opt) = converge_gen::reference::opt22(what) else {
        return;
    };
    let mut failures = Vec::new();
    let mut checked = 0;
    for f in inputs() {
        if check_file(&opt, f, &mut failures) {
            checked += 1;
        }
    }
    eprintln!(
        "print: {checked} of {} inputs checked against opt -S",
        inputs().len()
    );
    assert!(checked > 40, "only {checked} inputs could be checked");
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
