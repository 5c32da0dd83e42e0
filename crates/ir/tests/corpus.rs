//! Every `.ll` file of the LLVM test corpus that LLVM accepts must be read.
//!
//! Which files LLVM accepts is decided live: `opt -passes=verify -disable-output` of LLVM 19, and for
//! files LLVM 19 rejects, LLVM 22 (NVPTX-only build). Files LLVM rejects may be read or rejected
//! (the reader does not run LLVM's verifier); they are counted, not required.
//!
//! Split-file inputs (`; RUN: split-file %s %t`, parts introduced by `;--- name.ll`) are split here
//! and each `.ll` part is read and checked on its own; the current corpus has none, which the test
//! reports.

use std::path::Path;

/// Whether `opt` parses the file (`-passes=verify` would also reject IR that parses but is invalid;
/// parsing alone is what the reader is measured against, so use the parse-only `llvm-as` check of
/// `opt -disable-output` with no passes).
fn opt_accepts(opt: &Path, file: &Path) -> bool {
    std::process::Command::new(opt)
        .args(["-disable-output", "-passes=verify"])
        .arg(file)
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

#[test]
fn reads_every_corpus_file_llvm_accepts() {
    let Some(corpus) = converge_gen::reference::corpus("reads_every_corpus_file_llvm_accepts")
    else {
        return;
    };
    let Some(opt19) = converge_gen::reference::opt19("reads_every_corpus_file_llvm_accepts") else {
        return;
    };
    // LLVM 22 accepts a few files 19 rejects; checked like every reference tool.
    let opt22 = converge_gen::reference::opt22("reads_every_corpus_file_llvm_accepts (LLVM 22)");
    let mut files = Vec::new();
    files.extend(converge_gen::reference::ll_files(&corpus));
    assert!(!files.is_empty(), "no .ll files under {}", corpus.display());
    let mut failures = Vec::new();
    let (mut read, mut rejected_by_llvm) = (0, 0);
    let mut split_parts = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        if text.contains("split-file") {
            let dir = converge_gen::reference::repo_root().join("build/ir-tests/split");
            std::fs::create_dir_all(&dir).unwrap();
            for (name, part) in split_file(&text) {
                let p = dir.join(name);
                std::fs::write(&p, &part).unwrap();
                split_parts += 1;
                let accepted =
                    opt_accepts(&opt19, &p) || opt22.as_deref().is_some_and(|o| opt_accepts(o, &p));
                if let Err(d) = converge_ir::parse(&p.display().to_string(), part.clone())
                    && accepted
                {
                    failures.push(d.render(&p.display().to_string(), &part));
                }
            }
            continue;
        }
        let result = converge_ir::parse(&file.display().to_string(), text.clone());
        let accepted =
            opt_accepts(&opt19, file) || opt22.as_deref().is_some_and(|o| opt_accepts(o, file));
        match (&result, accepted) {
            (Ok(_), _) => read += 1,
            (Err(d), true) => failures.push(d.render(&file.display().to_string(), &text)),
            (Err(_), false) => rejected_by_llvm += 1,
        }
    }
    eprintln!(
        "corpus: {} files, {read} read, {rejected_by_llvm} rejected by us and by LLVM, {split_parts} split-file parts",
        files.len()
    );
    assert!(
        failures.is_empty(),
        "{} files LLVM accepts were not read:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The `.ll` parts of an LLVM `split-file` input: `;--- name` lines start a part.
fn split_file(text: &str) -> Vec<(String, String)> {
    let mut parts: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix(";--- ") {
            parts.push((name.trim().replace('/', "_"), String::new()));
        } else if let Some((_, body)) = parts.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    parts.retain(|(n, _)| n.ends_with(".ll"));
    parts
}

#[test]
fn split_file_parts() {
    let parts = split_file(
        "; RUN: split-file %s %t\n;--- a.ll\ndefine void @a() {\n  ret void\n}\n;--- b.txt\nx\n",
    );
    assert_eq!(parts.len(), 1);
    assert_eq!(parts[0].0, "a.ll");
    assert!(converge_ir::parse("a.ll", parts[0].1.clone()).is_ok());
}
