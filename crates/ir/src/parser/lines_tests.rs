//! Tests: the whole-line fast paths (`lines.rs`) read exactly what the token-by-token path reads.
//!
//! A random generator writes small functions made of the line kinds the fast paths know (block
//! labels, `br`, `phi`, `icmp`, `store`; `load`, casts, `getelementptr` and binary operators of
//! `lines_ops.rs`), each line in its canonical spelling or with its gaps
//! respelled (no space, two spaces, a tab, a comment and a newline) and with errors injected
//! (a byte replaced, inserted or deleted; operands that are other constants, numbered or quoted
//! names, undefined names, values used as blocks; other types and predicates). Every module is
//! read twice, fast paths on and off, and the results must be equal: the same module (every
//! table, every span) and the same operands noted with a wrong type, or the same first error.
//! A fast path that accepted a spelling the token path rejects, or read one differently, fails
//! here; counters make sure each fast path was taken many times. The same goes for the operands
//! and block references answered by the name map's cache (`Parser::local_operand`,
//! `Parser::block_name_tok`), off with the fast paths.

use super::Parser;

/// The project's seeded generator (`converge_gen::rng`), and the percent chance of an odd choice
/// (type, operand, block name).
struct Rng(converge_gen::rng::Rng, usize);

impl Rng {
    fn odd(&mut self) -> bool {
        let p = self.1;
        self.chance(p)
    }

    fn below(&mut self, n: usize) -> usize {
        self.0.below(n)
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.0.chance(percent as u32, 100)
    }

    fn pick<'a>(&mut self, v: &[&'a str]) -> &'a str {
        self.0.pick::<&str>(v)
    }
}

/// Writes one line from (canonical gap, piece) pairs, respelling gaps and injecting byte errors.
struct Line<'r> {
    rng: &'r mut Rng,
    text: String,
    /// Percent chance of respelling each gap.
    respell: usize,
}

impl Line<'_> {
    /// `, label D`: a block operand after another operand.
    fn label(&mut self, d: &str) {
        self.put("", ",");
        self.put(" ", "label");
        self.put(" ", d);
    }

    fn put(&mut self, gap: &str, piece: &str) {
        if self.rng.chance(self.respell) {
            let g = self
                .rng
                .pick(&["", " ", "  ", "\t", " ; c\n  ", "\n", " ;\n"]);
            self.text.push_str(g);
        } else {
            self.text.push_str(gap);
        }
        self.text.push_str(piece);
    }

    /// The line with, sometimes, one byte replaced, inserted or deleted.
    fn finish(self, inject: usize) -> String {
        let mut t = self.text.into_bytes();
        if !t.is_empty() && self.rng.chance(inject) {
            let at = self.rng.below(t.len() + 1);
            let byte = *[
                b',', b']', b'[', b'%', b' ', b':', b'0', b'9', b'x', b'-', b'"', b'v',
            ]
            .get(self.rng.below(12))
            .unwrap_or(&b' ');
            match self.rng.below(3) {
                0 if at < t.len() => t[at] = byte,
                1 => t.insert(at, byte),
                _ if at < t.len() => {
                    t.remove(at);
                }
                _ => {}
            }
        }
        // Only ASCII was written or injected.
        String::from_utf8(t).unwrap_or_default()
    }
}

/// A type for an operand: mostly the canonical ones, sometimes others.
fn ty(rng: &mut Rng) -> &'static str {
    if !rng.odd() {
        "i32"
    } else {
        rng.pick(&[
            "i64",
            "i1",
            "float",
            "ptr",
            "i8",
            "double",
            "ptr addrspace(1)",
            "<2 x i32>",
        ])
    }
}

/// A value operand: a defined local mostly, else constants and odd names.
fn value(rng: &mut Rng, defined: &[String]) -> String {
    if !rng.odd() {
        if rng.chance(50) && !defined.is_empty() {
            return defined[rng.below(defined.len())].clone();
        }
        return rng.below(80).to_string();
    }
    rng.pick(&[
        "%a",
        "%p",
        "%undefd",
        "%0",
        "%1",
        "%12",
        "%4294967296",
        "%\"q\"",
        "-3",
        "1234567890",
        "12345678901234567890",
        "0x10",
        "1.5",
        "true",
        "undef",
        "poison",
        "@g",
        "%b1",
        "007",
    ])
    .to_string()
}

/// A block reference: a block of the function mostly, else odd names.
fn block(rng: &mut Rng, blocks: usize, defined: &[String]) -> String {
    if !rng.odd() {
        return format!("%b{}", rng.below(blocks));
    }
    if rng.chance(30) {
        return format!("%b{}", rng.below(blocks + 1));
    }
    if rng.chance(30) && !defined.is_empty() {
        return defined[rng.below(defined.len())].clone();
    }
    rng.pick(&["%a", "%nob", "%1", "%\"b0\"", "%b-1", "%.x", "@g", "label"])
        .to_string()
}

/// A `float` operand: mostly a constant in a printer's spelling, else a defined local or odd
/// spellings of constants.
fn fvalue(rng: &mut Rng, defined: &[String]) -> String {
    if rng.chance(25) && !defined.is_empty() {
        return defined[rng.below(defined.len())].clone();
    }
    if !rng.odd() {
        return rng
            .pick(&[
                "5.000000e-01",
                "1.000000e+00",
                "2.500000e-01",
                "0x3FB99999A0000000",
                "0x3FF0000000000000",
            ])
            .to_string();
    }
    rng.pick(&[
        "1.5",
        "1.0e+00x",
        "0x3FB9999",
        "0xK3FB99999A0000000",
        "0x3FB99999A00000000",
        "1.e+00",
        "1.0e00",
        "1.0e+",
        "1.0E+00",
        "-5.000000e-01",
        "5.000000e-01:",
        "12.5e-01",
        "7",
        "0xZ",
        "1e+00",
    ])
    .to_string()
}

/// A pointer type for a `load`, `store` or `getelementptr`: mostly `ptr addrspace(1)`.
fn ptr_ty(rng: &mut Rng) -> &'static str {
    if !rng.odd() {
        "ptr addrspace(1)"
    } else {
        rng.pick(&[
            "ptr",
            "i32",
            "ptr addrspace(3)",
            "ptr addrspace (1)",
            "ptr addrspace(1)*",
        ])
    }
}

/// A pointer operand: mostly `%p`.
fn ptr_value(rng: &mut Rng, defined: &[String]) -> String {
    if !rng.odd() {
        "%p".to_string()
    } else {
        value(rng, defined)
    }
}

/// Flag words before a type, mostly none or the common ones.
fn flag_words(l: &mut Line, common: &[&str]) {
    let n = if l.rng.odd() {
        l.rng.below(3)
    } else {
        l.rng.below(2)
    };
    for _ in 0..n {
        let w = if !l.rng.odd() {
            l.rng.pick(common)
        } else {
            l.rng.pick(&[
                "nuw", "nsw", "exact", "disjoint", "nneg", "fast", "contract", "inbounds", "Nuw",
            ])
        };
        l.put(" ", w);
    }
}

/// A line of `lines_ops.rs`' kinds: `load`, a cast, `getelementptr` or a binary operator.
fn value_line(l: &mut Line, next: &mut usize, defined: &mut Vec<String>) {
    *next += 1;
    match l.rng.below(7) {
        6 => {
            let name = format!("%s{next}");
            let ct = if !l.rng.odd() { "i1" } else { ty(l.rng) };
            let c = if !l.rng.odd() {
                "%a".to_string()
            } else {
                value(l.rng, defined)
            };
            let float = l.rng.chance(40);
            let t = if float { "float" } else { ty(l.rng) };
            let t2 = if !l.rng.odd() { t } else { ty(l.rng) };
            let (a, b) = if float {
                (fvalue(l.rng, defined), fvalue(l.rng, defined))
            } else {
                (value(l.rng, defined), value(l.rng, defined))
            };
            l.put("", &name);
            l.put(" ", "=");
            l.put(" ", "select");
            flag_words(l, &["fast"]);
            l.put(" ", ct);
            l.put(" ", &c);
            l.put("", ",");
            l.put(" ", t);
            l.put(" ", &a);
            l.put("", ",");
            l.put(" ", t2);
            l.put(" ", &b);
            defined.push(name);
        }
        4 | 5 => {
            // A call: mostly the declared `@h(i32, i32)` or `@v()`.
            let (ret, callee, n) = if !l.rng.odd() {
                *l.rng.0.pick(&[("i32", "@h", 2), ("void", "@v", 0)])
            } else {
                *l.rng.0.pick(&[
                    ("float", "@llvm.fmuladd.f32", 3),
                    ("i32", "@undeclared", 1),
                    ("i32", "@g", 1),
                    ("i32", "@0", 1),
                    ("i32", "@\"h\"", 2),
                    ("i32", "%a", 1),
                    ("ptr", "@h", 2),
                    ("i32 (i32, i32)", "@h", 2),
                    ("i64", "@h", 9),
                ])
            };
            let n = if l.rng.odd() { l.rng.below(10) } else { n };
            if ret != "void" {
                let name = format!("%r{next}");
                l.put("", &name);
                l.put(" ", "=");
                l.put(" ", "");
                defined.push(name);
            }
            let kw = if !l.rng.odd() {
                l.rng.pick(&["tail call", "call"])
            } else {
                l.rng.pick(&[
                    "musttail call",
                    "notail call",
                    "tail",
                    "call fast",
                    "tail  call",
                ])
            };
            l.text.push_str(kw);
            if l.rng.chance(5) {
                let w = l
                    .rng
                    .pick(&["noundef", "fastcc", "addrspace(1)", "zeroext"]);
                l.put(" ", w);
            }
            l.put(" ", ret);
            l.put(" ", callee);
            l.put("", "(");
            for k in 0..n {
                if k > 0 {
                    l.put("", ",");
                    l.put(" ", "");
                } else {
                    l.put("", "");
                }
                let t = if ret == "float" { "float" } else { ty(l.rng) };
                l.text.push_str(t);
                if l.rng.chance(5) {
                    l.put(" ", "noundef");
                }
                let v = if t == "float" {
                    fvalue(l.rng, defined)
                } else {
                    value(l.rng, defined)
                };
                l.put(" ", &v);
            }
            l.put("", ")");
            if l.rng.chance(10) {
                let w = l
                    .rng
                    .pick(&["#0", "#1", "[ \"x\"() ]", "nounwind", ", !dbg !0"]);
                l.put(" ", w);
            }
        }
        0 => {
            let name = format!("%l{next}");
            let t = ty(l.rng);
            let pt = ptr_ty(l.rng);
            let pv = ptr_value(l.rng, defined);
            l.put("", &name);
            l.put(" ", "=");
            l.put(" ", "load");
            if l.rng.chance(5) {
                let w = l.rng.pick(&["volatile", "atomic"]);
                l.put(" ", w);
            }
            l.put(" ", t);
            l.put("", ",");
            l.put(" ", pt);
            l.put(" ", &pv);
            if l.rng.chance(70) {
                l.put("", ",");
                l.put(" ", "align");
                let n = l.rng.pick(&["4", "8", "0", "4294967296", "x"]);
                l.put(" ", n);
            }
            defined.push(name);
        }
        1 => {
            let name = format!("%x{next}");
            let op = if !l.rng.odd() {
                l.rng.pick(&["sext", "zext"])
            } else {
                l.rng
                    .pick(&["trunc", "sitofp", "ptrtoint", "bitcast", "fptosi"])
            };
            let t = ty(l.rng);
            let v = value(l.rng, defined);
            let to = if !l.rng.odd() {
                "i64"
            } else {
                l.rng.pick(&[
                    "i32",
                    "i1",
                    "float",
                    "ptr",
                    "i16",
                    "i64*",
                    "float addrspace(1)*",
                    "i8",
                ])
            };
            l.put("", &name);
            l.put(" ", "=");
            l.put(" ", op);
            flag_words(l, &["nneg"]);
            l.put(" ", t);
            l.put(" ", &v);
            let w = if l.rng.odd() { "tox" } else { "to" };
            l.put(" ", w);
            l.put(" ", to);
            defined.push(name);
        }
        2 => {
            let name = format!("%g{next}");
            let st = if !l.rng.odd() {
                "float"
            } else {
                l.rng
                    .pick(&["i32", "i64", "ptr", "i1", "[4 x float]", "i8", "float*"])
            };
            let pt = ptr_ty(l.rng);
            let pv = ptr_value(l.rng, defined);
            l.put("", &name);
            l.put(" ", "=");
            l.put(" ", "getelementptr");
            if l.rng.chance(80) {
                l.put(" ", "inbounds");
            }
            if l.rng.chance(5) {
                l.put(" ", "nuw");
            }
            l.put(" ", st);
            l.put("", ",");
            l.put(" ", pt);
            l.put(" ", &pv);
            for _ in 0..l.rng.below(4) {
                let it = if !l.rng.odd() {
                    "i64"
                } else {
                    l.rng.pick(&["i32", "i1", "<2 x i64>", "float"])
                };
                let v = value(l.rng, defined);
                l.put("", ",");
                l.put(" ", it);
                l.put(" ", &v);
            }
            defined.push(name);
        }
        _ => {
            let name = format!("%n{next}");
            let op = if !l.rng.odd() {
                l.rng.pick(&["add", "and", "fmul", "fadd"])
            } else {
                l.rng
                    .pick(&["sub", "xor", "shl", "udiv", "frem", "or", "mul"])
            };
            let float = l.rng.chance(40);
            let t = if float { "float" } else { ty(l.rng) };
            let (a, c) = if float {
                (fvalue(l.rng, defined), fvalue(l.rng, defined))
            } else {
                (value(l.rng, defined), value(l.rng, defined))
            };
            l.put("", &name);
            l.put(" ", "=");
            l.put(" ", op);
            flag_words(l, &["nuw", "nsw", "contract"]);
            l.put(" ", t);
            l.put(" ", &a);
            l.put("", ",");
            l.put(" ", &c);
            defined.push(name);
        }
    }
}

/// One function of `blocks` blocks of random lines.
fn function(rng: &mut Rng, k: usize, respell: usize, inject: usize) -> String {
    let blocks = 1 + rng.below(5);
    let mut defined: Vec<String> = vec!["%a".to_string()];
    let mut out = format!("define void @f{k}(i32 %a, ptr addrspace(1) %p) {{\n");
    let mut next = 0;
    for b in 0..blocks {
        out.push_str(&format!("b{b}:\n"));
        for _ in 0..rng.below(4) {
            let mut l = Line {
                rng,
                text: "  ".to_string(),
                respell,
            };
            match l.rng.below(7) {
                3..=6 => value_line(&mut l, &mut next, &mut defined),
                0 => {
                    // phi
                    next += 1;
                    let name = format!("%v{next}");
                    let t = ty(l.rng);
                    l.put("", &name);
                    l.put(" ", "=");
                    l.put(" ", "phi");
                    if l.rng.chance(5) {
                        l.put(" ", "fast");
                    }
                    l.put(" ", t);
                    for i in 0..1 + l.rng.below(3) {
                        if i > 0 {
                            l.put("", ",");
                        }
                        // `undef` incomings are common in generated code (crates/gen).
                        let v = if l.rng.chance(25) {
                            "undef".to_string()
                        } else if l.rng.chance(15) {
                            // A later phi's name (defined or not): a forward reference.
                            format!("%v{}", next + 1 + l.rng.below(4))
                        } else {
                            value(l.rng, &defined)
                        };
                        let bl = block(l.rng, blocks, &defined);
                        l.put(" ", "[");
                        l.put(" ", &v);
                        l.put("", ",");
                        l.put(" ", &bl);
                        l.put(" ", "]");
                    }
                    defined.push(name);
                }
                1 => {
                    // icmp
                    next += 1;
                    let name = format!("%c{next}");
                    let t = ty(l.rng);
                    let a = if l.rng.chance(60) {
                        defined[l.rng.below(defined.len())].clone()
                    } else {
                        value(l.rng, &defined)
                    };
                    let c = value(l.rng, &defined);
                    l.put("", &name);
                    l.put(" ", "=");
                    l.put(" ", "icmp");
                    if l.rng.chance(5) {
                        l.put(" ", "samesign");
                    }
                    let p = if !l.rng.odd() {
                        "slt"
                    } else {
                        l.rng
                            .pick(&["eq", "ne", "ugt", "sle", "olt", "bogus", "Slt"])
                    };
                    l.put(" ", p);
                    l.put(" ", t);
                    l.put(" ", &a);
                    l.put("", ",");
                    l.put(" ", &c);
                    defined.push(name);
                }
                _ => {
                    // store
                    let t = ty(l.rng);
                    let v = value(l.rng, &defined);
                    let pt = if !l.rng.odd() {
                        "ptr addrspace(1)"
                    } else {
                        l.rng
                            .pick(&["ptr", "i32", "ptr addrspace(3)", "ptr addrspace (1)"])
                    };
                    let pv = if !l.rng.odd() {
                        "%p".to_string()
                    } else {
                        value(l.rng, &defined)
                    };
                    l.put("", "store");
                    if l.rng.chance(5) {
                        let w = l.rng.pick(&["volatile", "atomic"]);
                        l.put(" ", w);
                    }
                    l.put(" ", t);
                    l.put(" ", &v);
                    l.put("", ",");
                    l.put(" ", pt);
                    l.put(" ", &pv);
                    if l.rng.chance(80) {
                        l.put("", ",");
                        l.put(" ", "align");
                        let n = l.rng.pick(&["4", "8", "16", "0", "4294967296", "x"]);
                        l.put(" ", n);
                    }
                }
            }
            let line = l.finish(inject);
            out.push_str(&line);
            out.push('\n');
        }
        // The terminator.
        let mut l = Line {
            rng,
            text: "  ".to_string(),
            respell,
        };
        if b + 1 == blocks && l.rng.chance(60) {
            l.put("", "ret");
            l.put(" ", "void");
        } else if l.rng.chance(20) {
            let t = ty(l.rng);
            let c = if l.rng.chance(70) {
                "%a".to_string()
            } else {
                value(l.rng, &defined)
            };
            let d = block(l.rng, blocks, &defined);
            l.put("", "switch");
            l.put(" ", t);
            l.put(" ", &c);
            l.label(&d);
            l.put(" ", "[");
            for _ in 0..l.rng.below(4) {
                let ct = ty(l.rng);
                let v = value(l.rng, &defined);
                let d = block(l.rng, blocks, &defined);
                l.put("\n    ", ct);
                l.put(" ", &v);
                l.label(&d);
            }
            l.put("\n  ", "]");
        } else if l.rng.chance(50) {
            let d = block(l.rng, blocks, &defined);
            l.put("", "br");
            l.put(" ", "label");
            l.put(" ", &d);
        } else {
            let c = if l.rng.chance(70) && defined.len() > 1 {
                defined[l.rng.below(defined.len())].clone()
            } else {
                value(l.rng, &defined)
            };
            let t = if !l.rng.odd() { "i1" } else { ty(l.rng) };
            let d1 = block(l.rng, blocks, &defined);
            let d2 = block(l.rng, blocks, &defined);
            l.put("", "br");
            l.put(" ", t);
            l.put(" ", &c);
            l.label(&d1);
            l.label(&d2);
        }
        if l.rng.chance(5) {
            l.put("", ",");
            l.put(" ", "!dbg");
            l.put(" ", "!0");
        }
        let line = l.finish(inject);
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str("}\n");
    out
}

/// Reads `text` with the fast paths on and off; both results as text (the module's every table
/// and span, the operands noted with a wrong type, or the error), and the fast paths taken.
fn both_ways(text: &str) -> (String, String, [usize; super::lines::KINDS]) {
    both_ways_cached(text, usize::MAX)
}

/// [`both_ways`] with the name map's cache limited to the indices of `mask` (`0`: one entry),
/// so that lookups miss it and the paths behind it are taken in small functions.
fn both_ways_cached(text: &str, mask: usize) -> (String, String, [usize; super::lines::KINDS]) {
    let mut fast = Parser::new("t.ll", text);
    fast.general_only = false;
    fast.locals.cache_mask &= mask;
    let fast_r = fast.parse_module_counted();
    let mut slow = Parser::new("t.ll", text);
    slow.general_only = true;
    slow.locals.cache_mask &= mask;
    let (slow_r, _) = slow.parse_module_counted();
    (format!("{:?}", fast_r.0), format!("{slow_r:?}"), fast_r.1)
}

#[test]
fn fast_lines_read_as_the_token_path() {
    let mut rng = Rng(converge_gen::rng::Rng::new(0x2545_f491_4f6c_dd1d), 0);
    let mut taken = [0usize; super::lines::KINDS];
    let (mut ok, mut failed) = (0, 0);
    for round in 0..6000 {
        // Canonical modules, respelled ones, and ones with errors injected.
        let (odd, respell, inject) = match round % 5 {
            0 => (0, 0, 0),
            1 => (30, 0, 0),
            2 => (0, 8, 0),
            3 => (0, 0, 20),
            _ => (10, 5, 10),
        };
        rng.1 = odd;
        let mut text = String::from(HEADER);
        for k in 0..1 + rng.below(2) {
            text.push_str(&function(&mut rng, k, respell, inject));
        }
        // The name map's cache whole, of four entries or of one.
        let mask = [usize::MAX, 3, 0][round % 3];
        let (fast, slow, counts) = both_ways_cached(&text, mask);
        assert_eq!(fast, slow, "\n{text}");
        for (t, c) in taken.iter_mut().zip(counts) {
            *t += c;
        }
        if fast.starts_with("Ok") {
            ok += 1;
        } else {
            failed += 1;
        }
    }
    // Each fast path was taken often, and both outcomes were met often.
    for (kind, &n) in [
        "br",
        "phi",
        "icmp",
        "store",
        "switch case",
        "cached value",
        "cached block",
        "first sight",
        "load",
        "cast",
        "getelementptr",
        "binary operator",
        "call",
        "select",
        "float constant",
        "label",
        "result name",
        "undef incoming",
        "value behind the cache",
        "forward reference",
        "dense block",
        "plain void line",
        "plain line after its name",
    ]
    .iter()
    .zip(&taken)
    {
        assert!(n > 1000, "{kind} taken {n} times: {taken:?}");
    }
    eprintln!("taken {taken:?}, {ok} read, {failed} failed");
    assert!(ok > 500 && failed > 500, "{ok} read, {failed} failed");
}

/// The declarations every test module starts with.
const HEADER: &str = "@g = global i32 0\ndeclare i32 @h(i32, i32)\ndeclare void @v()\nattributes #0 = { nounwind }\n";

/// Hand-written spellings next to the canonical ones, each read the same both ways.
#[test]
fn near_misses_read_as_the_token_path() {
    let lines = [
        "%v = phi i32 [ 0, %b0 ], [ 1, %b1 ]",
        "%v = phi i32 [ undef, %b0 ], [ %a, %b1 ]",
        "%v = phi i32 [ %a, %b0 ], [ undef, %b1 ]",
        "%v = phi i32 [ undefx, %b0 ], [ %a, %b1 ]",
        "%v = phi i32 [ undef , %b0 ], [ %a, %b1 ]",
        "%v = phi i32 [ undef,%b0 ]",
        "%v = phi i32 [ undef, %b0 ], [ undef, %b0 ]",
        "%v = phi float [ undef, %b0 ], [ 1.000000e+00, %b1 ]",
        "%v = phi ptr [ undef, %b0 ], [ %p, %b1 ]",
        "%v = phi i1 [ undef, %b0 ], [ true, %b1 ]",
        "%v = phi <2 x i32> [ undef, %b0 ], [ undef, %b1 ]",
        "%v = phi i32 [ undef, %b0 ], [ 1, %b1 ]",
        "%v = phi i32 [ 0, %b0 ],[ 1, %b1 ]",
        "%v = phi i32 [ 0, %b0 ] , [ 1, %b1 ]",
        "%v = phi i32 [ 0, %b0 ], [ 1, %b1 ], !dbg !0",
        "%v = phi i32 [ 0, %b0 ], [ 1, %b1 ]]",
        "%v = phi i32 [ 0, %b0 ], [ 1x, %b1 ]",
        "%v = phi i32 [ 0:, %b0 ]",
        "%v = phi i32 [ 0, %b0: ]",
        "%v = phi i32 [ 0, %0 ]",
        "%v = phi i32 [ 4294967296, %b0 ], [ 1, %b1 ]",
        "%v = phi i32 [ 0.5, %b0 ], [ 1, %b1 ]",
        "%v = phi i32 [ %a, %a ], [ 1, %b1 ]",
        "%v = phi i1 [ 0, %b0 ], [ 1, %b1 ]",
        "%v = phi ptr [ null, %b0 ], [ %p, %b1 ]",
        "%v = phi i32* [ 0, %b0 ], [ 1, %b1 ]",
        "%v = phi i32 [ %v, %b0 ], [ %a, %b1 ]",
        "%v = phi i32 [ %9999999999, %b0 ], [ 1, %b1 ]",
        "%d = icmp slt i32 %a, 10",
        "%d = icmp slt i32 10, %a",
        "%d = icmp slt i32 10, 11",
        "%d = icmp slt i32 4294967296, %a",
        "%d = icmp slt i32 -1, %a",
        "%d = icmp slt i32 10 , %a",
        "%d = icmp slt i32 10:, %a",
        "%d = icmp ult i64 7, %a",
        "%d = icmp eq i1 1, %a",
        "%d = icmp slt float 1.000000e+00, %a",
        "%d = icmp slt i32 undef, %a",
        "%d = icmp slt i32 %a, 10.0",
        "%d = icmp slt i32 %a, 10:",
        "%d = icmp slt i32 %a, -10",
        "%d = icmp slt i32 %a,10",
        "%d = icmp sltx i32 %a, 10",
        "%d = icmp slt i32 %a, %p",
        "%d = icmp slt i32 %a, %nope",
        "%d = icmp slt i1 %a, 1",
        "%d = icmp slt float %a, 1",
        "%d = icmp slt ptr %p, 0",
        "%v = phi float [ 0, %b0 ], [ 1, %b1 ]",
        "%v = phi ptr [ 0, %b0 ], [ %p, %b1 ]",
        "store float 1, ptr addrspace(1) %p, align 4",
        "store ptr 0, ptr addrspace(1) %p, align 4",
        "%d = icmp slt <2 x i32> %a, 1",
        "%d = icmp slt i32 %a, 10, !dbg !0",
        "%d = icmp samesign slt i32 %a, 10",
        "store i32 %a, ptr addrspace(1) %p, align 4",
        "store i32 %a, ptr addrspace(1) %p, align 4, !dbg !0",
        "store i32 %a, ptr addrspace(1) %p, align 4294967296",
        "store i32 %a, ptr addrspace(1) %p, align 4x",
        "store i32 %a, ptr addrspace(1) %p",
        "store i32 %a, ptr addrspace(1) %p,",
        "store i32 %a, ptr addrspace(1)%p, align 4",
        "store i32 %a, ptr %p, align 4",
        "store i32 %a, i32 %p, align 4",
        "store i32 5, ptr addrspace(1) %p, align 4",
        "store i64 %a, ptr addrspace(1) %p, align 4",
        "store volatile i32 %a, ptr addrspace(1) %p, align 4",
        "store i32 %a, ptr addrspace(1) %a, align 4",
        "br label %b1",
        "br label %b1:",
        "br label %a",
        "br label %0",
        "br label %\"b1\"",
        "br label %b1, !dbg !0",
        "br i1 %c, label %b0, label %b1",
        "br i1 %c, label %b0, label %b1 label",
        "br i1 %c, label %b0 label %b1",
        "br i1 %a, label %b0, label %b1",
        "br i1 true, label %b0, label %b1",
        "br i1 %c, label %a, label %b1",
        "br i1 %c, label %b0, label %undefined",
        "br i1 %0, label %b0, label %b1",
        "br i32 %a, label %b0, label %b1",
        "switch i32 %a, label %b0 [\n    i32 0, label %b1\n    i32 1, label %b0\n  ]",
        "switch i32 %a, label %b0 [\n    i32 0, label %b1\n    i32 0, label %b0\n  ]",
        "switch i32 %a, label %b0 [\n    i32 0, label %b1 i32 1, label %b0 ]",
        "switch i32 %a, label %b0 [\n    i32 %a, label %b1\n    i64 1, label %b0\n  ]",
        "switch i32 %a, label %b0 [\n    i32 0,label %b1\n    i32 1, label %x\n  ]",
        "switch i32 %a, label %b0 [\n    i32 0, label %b1\n    i32 1, label %0\n  ]",
        "switch i32 %a, label %b0 [\n    i32 0, label %b1\n    i32 -1, label %b0\n  ]",
        "%l = load i32, ptr addrspace(1) %p, align 4",
        "%l = load i32, ptr addrspace(1) %p, align 4, !tbaa !0",
        "%l = load i32, ptr addrspace(1) %p",
        "%l = load i32, ptr addrspace(1) %p,",
        "%l = load i32, ptr addrspace(1) %p, i32 4",
        "%l = load i32,ptr addrspace(1) %p",
        "%l = load i32 , ptr addrspace(1) %p",
        "%l = load i32, ptr addrspace(1)* %p",
        "%l = load i32, ptr %a",
        "%l = load i32, i32 %p",
        "%l = load i1, ptr %p",
        "%l = load i16, ptr %p",
        "%l = load ptr, ptr %p",
        "%l = load float, ptr addrspace(4294967296) %p",
        "%l = load float, ptr addrspace(3) %undefd",
        "%l = load float, ptr addrspace(3) %\"p\"",
        "%l = load float, ptr addrspace(3) %0",
        "%l = load float, ptr addrspace(3) @g",
        "%l = load volatile float, ptr %p",
        "%l = load atomic float, ptr %p seq_cst, align 4",
        "%x = sext i32 %a to i64",
        "%x = sext i32 7 to i64",
        "%x = sext i32 -7 to i64",
        "%x = sext i32 4294967296 to i64",
        "%x = zext nneg i32 %a to i64",
        "%x = zext nneg nneg i32 %a to i64",
        "%x = zext exact i32 %a to i64",
        "%x = trunc nuw nsw i64 %a to i32",
        "%x = sext i32 %a to i64*",
        "%x = sext i32 %a to i64 addrspace(1)*",
        "%x = sext i32 %a to i16",
        "%x = sext i32 %a to i1",
        "%x = sext i32 %a to i1, !dbg !0",
        "%x = sext i32 %a to i64,",
        "%x = sext i32 %a to i64:",
        "%x = sext i32 %a to",
        "%x = sext i32 %a tox i64",
        "%x = sext i32 %a  to i64",
        "%x = sitofp i32 %a to float",
        "%x = sitofp i32 %a to floatx",
        "%x = ptrtoint ptr %p to i64",
        "%x = bitcast float %a to i32",
        "%x = sext i32 %p to i64",
        "%x = sext i1 1 to i64",
        "%g = getelementptr inbounds float, ptr addrspace(1) %p, i64 %a",
        "%g = getelementptr inbounds float, ptr addrspace(1) %p, i64 %a, !dbg !0",
        "%g = getelementptr inbounds float, ptr addrspace(1) %p, i64 7",
        "%g = getelementptr inbounds float, ptr addrspace(1) %p, i64 -7",
        "%g = getelementptr inbounds float, ptr addrspace(1) %p, i64 -7, i32 %a",
        "%g = getelementptr inbounds float, ptr addrspace(1) %p, i64 0, i32 1, i64 %a",
        "%g = getelementptr inbounds float, ptr addrspace(1) %p, <2 x i64> %a",
        "%g = getelementptr inbounds float, ptr addrspace(1) %p, i64 %a,",
        "%g = getelementptr inbounds float, ptr addrspace(1) %p, i64 %a, i64",
        "%g = getelementptr inbounds float, ptr addrspace(1) %p,i64 %a",
        "%g = getelementptr inbounds float, ptr addrspace(1) %p, i64 %undefd",
        "%g = getelementptr float, ptr %p, i64 1",
        "%g = getelementptr inbounds nuw float, ptr %p, i64 1",
        "%g = getelementptr nuw float, ptr %p, i64 1",
        "%g = getelementptr inbounds ptr, ptr %p, i64 1",
        "%g = getelementptr inbounds [4 x float], ptr %p, i64 0, i64 1",
        "%g = getelementptr inbounds float, ptr addrspace(3) @g, i64 1",
        "%g = getelementptr inbounds float, ptr %a, i64 1",
        "%g = getelementptr inbounds float, ptr %p",
        "%g = getelementptr inbounds float, ptr %p:",
        "%n = add i32 %a, 1",
        "%n = add nuw nsw i32 %a, 1",
        "%n = add nuw nsw i32 %a, 1, !dbg !0",
        "%n = add i32 %a, -1",
        "%n = add i32 3, 4",
        "%n = add i32 %a, %p",
        "%n = add i32 %a, %undefd",
        "%n = add i32 %a,%a",
        "%n = add i32 %a, 1x",
        "%n = add i64 %a, 1",
        "%n = add nneg i32 %a, 1",
        "%n = add exact i32 %a, 1",
        "%n = and disjoint i32 %a, 1",
        "%n = fmul contract float %a, %a",
        "%n = fmul fast float %a, %a",
        "%n = fmul contract float %a, 1.0",
        "%n = fmul contract float %a, 1",
        "%n = fmul contract i32 %a, %a",
        "%n = fmul contractx float %a, %a",
        "%n = add i1 %a, 1",
        "%n = add <2 x i32> %a, %a",
        "%n = add ptr %p, %p",
        "%r = tail call i32 @h(i32 %a, i32 1)",
        "%r = tail call i32 @h(i32 %a, i32 1) #0",
        "%r = tail call i32 @h(i32 %a, i32 1) #1",
        "%r = tail call i32 @h(i32 %a, i32 1), !dbg !0",
        "%r = tail call i32 @h(i32 %a, i32 1) [ \"x\"() ]",
        "%r = tail call i32 @h(i32 %a, i32 -1)",
        "%r = tail call i32 @h(i32 %a, i32 noundef 1)",
        "%r = tail call i32 @h(i32 %a,i32 1)",
        "%r = tail call i32 @h(i32 %a, i32 1 )",
        "%r = tail call i32 @h( i32 %a, i32 1)",
        "%r = tail call i32 @h(i32 %a, i32 %p)",
        "%r = tail call i32 @h(i32 %a, i64 1)",
        "%r = tail call i32 @h(i32 %a)",
        "%r = tail call i32 @h(i32 %a, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8)",
        "%r = tail call i32 @h(i32 %a, i32 %undefd)",
        "%r = tail call i64 @h(i32 %a, i32 1)",
        "%r = tail call ptr @h(i32 %a, i32 1)",
        "%r = tail call i32 @nope(i32 %a, i32 1)",
        "%r = tail call i32 @\"h\"(i32 %a, i32 1)",
        "%r = tail call i32 @0(i32 %a, i32 1)",
        "%r = tail call i32 @g(i32 %a, i32 1)",
        "%r = tail call i32 %p(i32 %a, i32 1)",
        "%r = tail call i32 (i32, i32) @h(i32 %a, i32 1)",
        "%r = tail call fastcc i32 @h(i32 %a, i32 1)",
        "%r = tail call fast float @h(i32 %a, i32 1)",
        "%r = musttail call i32 @h(i32 %a, i32 1)",
        "%r = notail call i32 @h(i32 %a, i32 1)",
        "%r = tail  call i32 @h(i32 %a, i32 1)",
        "%r = call i32 @h(i32 %a, i32 1)",
        "%r = call i32 @h (i32 %a, i32 1)",
        "%r = call i32 @h(i32 %a, i32 1)x",
        "%r = call void @v()",
        "call void @v()",
        "call void @v() #0",
        "tail call void @v()",
        "tail call void @v(",
        "tail call void @v)",
        "call i32 @h(i32 %a, i32 1)",
        "%r = call void @v()",
        "%s = select i1 %c, i32 %a, i32 1",
        "%s = select i1 %c, i32 %a, i32 1, !dbg !0",
        "%s = select i1 %c, i32 %a, i64 1",
        "%s = select i1 %c, i32 %a, i32 -1",
        "%s = select i1 %c, float %a, float 1.0",
        "%s = select i1 %c, ptr %p, ptr %p",
        "%s = select i1 %a, i32 %a, i32 %a",
        "%s = select i1 1, i32 %a, i32 %a",
        "%s = select i32 %a, i32 %a, i32 %a",
        "%s = select fast i1 %c, float %a, float %a",
        "%s = select nsw i1 %c, i32 %a, i32 %a",
        "%s = select i1 %c, i32 %a,i32 %a",
        "%s = select i1 %c, i32 %a, i32 %undefd",
        "%s = select <2 x i1> %c, i32 %a, i32 %a",
        "%n = fmul contract float %a, 5.000000e-01",
        "%n = fmul contract float 5.000000e-01, %a",
        "%n = fmul contract float %a, 0x3FB99999A0000000",
        "%n = fmul contract float %a, 0x3FB99999A000000",
        "%n = fmul contract float %a, 0x3FB99999A00000000",
        "%n = fmul contract float %a, 0xK3FB99999A0000000",
        "%n = fmul contract float %a, 5.000000e-01x",
        "%n = fmul contract float %a, 5.000000e-01:",
        "%n = fmul contract float %a, 5.000000e-01, !dbg !0",
        "%n = fmul contract float %a, 5.000000e+01",
        "%n = fmul contract float %a, 5.000000e01",
        "%n = fmul contract float %a, 5.e-01",
        "%n = fmul contract float %a, 5.000000E-01",
        "%n = fmul contract float %a, 55.000000e-01",
        "%n = fmul contract float %a, 5.000000e-",
        "%n = fmul contract i32 %a, 5.000000e-01",
        "%n = add i32 %a, 5.000000e-01",
        "%v = phi float [ 5.000000e-01, %b0 ], [ %a, %b1 ]",
        "%v = phi float [ %a, %b0 ], [ 1.000000e+00, %b1 ]",
        "%v = phi float [ 0x3FB99999A0000000, %b0 ], [ 1.000000e+00, %b1 ]",
        "%v = phi double [ 5.000000e-01, %b0 ], [ %a, %b1 ]",
        "store float 5.000000e-01, ptr addrspace(1) %p, align 4",
        "store float 0x3FB99999A0000000, ptr addrspace(1) %p, align 4",
        "store i32 5.000000e-01, ptr addrspace(1) %p, align 4",
        "%s = select i1 %c, float 5.000000e-01, float %a",
        "%s = select i1 %c, float %a, float 0x3FB99999A0000000",
        "%r = tail call float @llvm.fmuladd.f32(float 5.000000e-01, float %a, float %a)",
        "%d = icmp slt float %a, 5.000000e-01",
        "%x = fptosi float 5.000000e-01 to i32",
    ];
    for line in lines {
        for tail in ["\n  ret void\n", "\n  br label %b1\n", "\n"] {
            let text = format!(
                "{HEADER}define void @f(i32 %a, ptr addrspace(1) %p) {{\nb0:\n  %c = icmp eq i32 %a, 0\n  br label %b1\nb1:\n  {line}{tail}}}\n"
            );
            let (fast, slow, _) = both_ways(&text);
            assert_eq!(fast, slow, "\n{text}");
        }
    }
}

/// What the reader learns about a function's instructions as it reads them (`ReadFacts`: the
/// lines its fast paths vouch for, the uses that may need the dominator tree, where the phis
/// are) gives `wellformed` the answer of its scan of every instruction (the reference: no facts):
/// the same module accepted or the same first error, with the checks on one thread and on two,
/// on the generator's modules (operands of other types, forward references, values used as
/// blocks, phis after other lines, uses their definitions do not dominate), read with the fast
/// paths on and off.
#[test]
fn read_facts_check_as_the_scan() {
    let mut rng = Rng(converge_gen::rng::Rng::new(0x9e37_79b9_7f4a_7c15), 0);
    let (mut ok, mut failed, mut vouched, mut no_tree) = (0, 0, 0, 0);
    for round in 0..6000 {
        let (odd, respell, inject) = match round % 4 {
            0 => (0, 0, 0),
            1 => (30, 0, 0),
            2 => (10, 0, 0),
            _ => (5, 3, 5),
        };
        rng.1 = odd;
        let mut text = String::from(HEADER);
        for k in 0..1 + rng.below(3) {
            text.push_str(&function(&mut rng, k, respell, inject));
        }
        for general_only in [false, true] {
            let mut p = Parser::new("t.ll", &text);
            p.general_only = general_only;
            let Ok((m, wrong, facts)) = p.parse_module_noted() else {
                continue;
            };
            for two_threads in [false, true] {
                let with = crate::wellformed::check_module(&m, &wrong, &facts, two_threads)
                    .map_err(|e| format!("{e:?}"));
                let scanned = crate::wellformed::check_module(&m, &wrong, &[], two_threads)
                    .map_err(|e| format!("{e:?}"));
                assert_eq!(with, scanned, "\n{text}");
                if with.is_ok() {
                    ok += 1;
                } else {
                    failed += 1;
                }
            }
            for r in facts
                .iter()
                .filter(|r| wrong.iter().all(|w| w.func != r.func))
            {
                vouched += m.functions[r.func as usize].insts.len() - r.unchecked.len();
                no_tree += r.far.is_empty() as usize;
            }
        }
    }
    eprintln!(
        "{ok} accepted, {failed} rejected, {vouched} lines vouched for, {no_tree} without the tree"
    );
    assert!(
        ok > 500 && failed > 1000,
        "{ok} accepted, {failed} rejected"
    );
    assert!(
        vouched > 500 && no_tree > 1000,
        "{vouched} vouched, {no_tree} without the tree"
    );
}

/// One to three edits of a random line of `text`'s bodies: an operand `%vN` renamed (a use not
/// dominated, a forward or undefined reference, a phi's own value), `i32` written `i64` (operands
/// of other types), a line swapped with the next (phis after other lines, terminators
/// misplaced), an operand naming a block, a pointer operand naming an `i32`, or a `select` added
/// whose condition may be an `i32` (a type error only the full check finds).
fn damaged(rng: &mut converge_gen::rng::Rng, text: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let body: Vec<usize> = (0..lines.len())
        .filter(|&i| {
            lines[i].starts_with("  %")
                || lines[i].starts_with("  br")
                || lines[i].starts_with("  store")
        })
        .collect();
    if body.is_empty() {
        return text.to_string();
    }
    for _ in 0..1 + rng.below(3) {
        let i = body[rng.below(body.len())];
        let l = lines[i].clone();
        // Operand positions: `%v`/`%a`/`%p` after the result's `=`, if any.
        let from = l.find(" = ").map_or(2, |e| e + 3);
        let uses: Vec<usize> = l[from..]
            .match_indices('%')
            .map(|(k, _)| from + k)
            .collect();
        let name_end = |k: usize| {
            k + 1
                + l[k + 1..]
                    .find(|c: char| !c.is_ascii_alphanumeric())
                    .unwrap_or(l.len() - k - 1)
        };
        lines[i] = match rng.below(7) {
            0 | 1 if !uses.is_empty() => {
                let k = uses[rng.below(uses.len())];
                let new = if rng.chance(1, 6) {
                    format!("%b{}", rng.below(8))
                } else {
                    format!("%v{}", rng.below(40))
                };
                format!("{}{}{}", &l[..k], new, &l[name_end(k)..])
            }
            2 => l.replacen("i32", "i64", 1),
            3 if i + 1 < lines.len() && lines[i + 1].starts_with("  ") => {
                lines.swap(i, i + 1);
                continue;
            }
            4 => l.replacen("ptr addrspace(1) %p", "ptr addrspace(1) %a0", 1),
            5 if l.starts_with("  %") => {
                let c = if rng.chance(1, 2) {
                    "i1 %c0"
                } else {
                    "i32 %a0"
                };
                format!("  %s{i} = select {c}, i32 %a1, i32 %a0\n{l}")
            }
            _ => l,
        };
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// `read_facts_check_as_the_scan` on the project's random GPU programs (`converge_gen::program`:
/// valid modules with loops, irreducible cycles, unreachable blocks, phis of values defined
/// later), edited by [`damaged`]: mostly valid modules, and the errors the checks after the type
/// checks find (uses not dominated, phis out of place), where the reader's facts decide most.
#[test]
fn read_facts_check_as_the_scan_on_programs() {
    use converge_gen::program::{Flavor, Options, module};
    let mut rng = converge_gen::rng::Rng::new(0x51_7cc1_b727_220a);
    let (mut ok, mut failed, mut vouched, mut no_tree) = (0, 0, 0, 0);
    for round in 0..1500 {
        let mut opts = Options::new(Flavor::Amdgpu);
        opts.max_blocks = 12;
        opts.unreachable = round % 3 == 0;
        opts.reducible_only = round % 4 == 1;
        let n = 1 + rng.below(3);
        let text = module(&mut rng, n, &opts);
        let text = if round % 5 == 0 {
            text
        } else {
            damaged(&mut rng, &text)
        };
        for general_only in [false, true] {
            let mut p = Parser::new("t.ll", &text);
            p.general_only = general_only;
            let Ok((m, wrong, facts)) = p.parse_module_noted() else {
                continue;
            };
            for two_threads in [false, true] {
                let with = crate::wellformed::check_module(&m, &wrong, &facts, two_threads)
                    .map_err(|e| format!("{e:?}"));
                let scanned = crate::wellformed::check_module(&m, &wrong, &[], two_threads)
                    .map_err(|e| format!("{e:?}"));
                assert_eq!(with, scanned, "\n{text}");
                if with.is_ok() {
                    ok += 1;
                } else {
                    failed += 1;
                }
            }
            for r in facts
                .iter()
                .filter(|r| wrong.iter().all(|w| w.func != r.func))
            {
                vouched += m.functions[r.func as usize].insts.len() - r.unchecked.len();
                no_tree += r.far.is_empty() as usize;
            }
        }
    }
    eprintln!(
        "{ok} accepted, {failed} rejected, {vouched} lines vouched for, {no_tree} without the tree"
    );
    assert!(ok > 500 && failed > 500, "{ok} accepted, {failed} rejected");
    assert!(
        vouched > 1000 && no_tree > 100,
        "{vouched} vouched, {no_tree} without the tree"
    );
}

/// A diamond whose every use is drawn from the values around it (an argument, a constant, each
/// block's value, the phi, the value after it), its blocks sometimes written in another order
/// (a phi's incoming block read after the phi): each use alone decides whether the dominator
/// tree is needed and whether the module is valid.
fn diamond(rng: &mut converge_gen::rng::Rng, k: usize) -> String {
    // Each use mostly one of the values valid there, else any (`%x5` is never defined).
    let mut v = |valid: &[&'static str]| {
        let any = ["%a", "7", "%x0", "%x1", "%x2", "%x3", "%x4", "%x5"];
        if rng.chance(3, 4) {
            valid[rng.below(valid.len())]
        } else {
            any[rng.below(any.len())]
        }
    };
    let (u1, u2) = (v(&["%a", "7", "%x0"]), v(&["%a", "7", "%x0"]));
    let (p1, p2) = (v(&["%a", "7", "%x0", "%x1"]), v(&["%a", "7", "%x0", "%x2"]));
    let u3 = v(&["%a", "7", "%x0", "%x3"]);
    let b1 = format!("b1:\n  %x1 = add i32 {u1}, 1\n  br label %b3\n");
    let b2 = format!("b2:\n  %x2 = add i32 {u2}, 2\n  br label %b3\n");
    let b3 = format!(
        "b3:\n  %x3 = phi i32 [ {p1}, %b1 ], [ {p2}, %b2 ]\n  %x4 = add i32 {u3}, 3\n  ret void\n"
    );
    let rest = match rng.below(3) {
        0 => format!("{b1}{b2}{b3}"),
        1 => format!("{b3}{b1}{b2}"),
        _ => format!("{b2}{b3}{b1}"),
    };
    format!(
        "define void @d{k}(i32 %a, i1 %c) {{\nb0:\n  %x0 = add i32 %a, 1\n  br i1 %c, label %b1, label %b2\n{rest}}}\n"
    )
}

#[test]
fn read_facts_check_as_the_scan_on_diamonds() {
    let mut rng = converge_gen::rng::Rng::new(0x2f6b_96d4_6c1e_a517);
    let (mut ok, mut failed, mut no_tree) = (0, 0, 0);
    for _ in 0..3000 {
        let mut text = String::from(HEADER);
        for k in 0..1 + rng.below(2) {
            text.push_str(&diamond(&mut rng, k));
        }
        let Ok((m, wrong, facts)) = Parser::new("t.ll", &text).parse_module_noted() else {
            continue;
        };
        let with = crate::wellformed::check_module(&m, &wrong, &facts, false)
            .map_err(|e| format!("{e:?}"));
        let scanned =
            crate::wellformed::check_module(&m, &wrong, &[], false).map_err(|e| format!("{e:?}"));
        assert_eq!(with, scanned, "\n{text}");
        if with.is_ok() {
            ok += 1;
        } else {
            failed += 1;
        }
        no_tree += facts.iter().filter(|r| r.far.is_empty()).count();
    }
    eprintln!("{ok} accepted, {failed} rejected, {no_tree} without the tree");
    assert!(
        ok > 100 && failed > 1000 && no_tree > 100,
        "{ok} accepted, {failed} rejected, {no_tree} without the tree"
    );
}

/// A function on a random CFG of a few blocks whose phis list their block's predecessor edges,
/// shuffled, or a near miss of them (an entry replaced, dropped or repeated).
fn phi_cfg(rng: &mut converge_gen::rng::Rng) -> String {
    let n = 2 + rng.below(5);
    let mut succs: Vec<Vec<usize>> = Vec::new();
    for _ in 0..n {
        let mut s = Vec::new();
        match rng.below(6) {
            0 => {}
            1 | 2 => s.push(1 + rng.below(n - 1)),
            _ => {
                s.push(1 + rng.below(n - 1));
                s.push(1 + rng.below(n - 1));
            }
        }
        succs.push(s);
    }
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (b, s) in succs.iter().enumerate() {
        for &t in s {
            preds[t].push(b);
        }
    }
    let mut out = String::from("define void @p(i1 %c) {\n");
    for b in 0..n {
        out.push_str(&format!("b{b}:\n"));
        for k in 0..rng.below(3) {
            let mut inc = preds[b].clone();
            for i in (1..inc.len()).rev() {
                let j = rng.below(i + 1);
                inc.swap(i, j);
            }
            match rng.below(6) {
                0 if !inc.is_empty() => {
                    let i = rng.below(inc.len());
                    inc[i] = rng.below(n);
                }
                1 if !inc.is_empty() => {
                    inc.pop();
                }
                2 if !inc.is_empty() => inc.push(inc[0]),
                _ => {}
            }
            if inc.is_empty() {
                continue;
            }
            let entries: Vec<String> = inc.iter().map(|q| format!("[ 0, %b{q} ]")).collect();
            out.push_str(&format!("  %x{b}.{k} = phi i32 {}\n", entries.join(", ")));
        }
        match succs[b][..] {
            [] => out.push_str("  ret void\n"),
            [t] => out.push_str(&format!("  br label %b{t}\n")),
            [t, u, ..] => out.push_str(&format!("  br i1 %c, label %b{t}, label %b{u}\n")),
        }
    }
    out.push_str("}\n");
    out
}

/// `wellformed`'s phis of one or two entries compared with their block's first two predecessor
/// edges give the answer of counting each entry's edges (`NO_FIRST_PREDS`), on the modules of
/// the generators above: random branches and phis (most rejected for their entries), programs
/// with edits, diamonds, and phis listing their block's predecessors or near misses of them.
#[test]
fn first_preds_check_as_counting() {
    use crate::wellformed::NO_FIRST_PREDS;
    use converge_gen::program::{Flavor, Options, module};
    use std::sync::atomic::Ordering::Relaxed;
    let mut rng = converge_gen::rng::Rng::new(0x6a09_e667_f3bc_c908);
    let mut lines = Rng(converge_gen::rng::Rng::new(0xbb67_ae85_84ca_a73b), 0);
    let (mut ok, mut failed, mut small) = (0, 0, 0);
    for round in 0..3000 {
        let text = match round % 4 {
            3 => format!("{HEADER}{}", phi_cfg(&mut rng)),
            0 => {
                lines.1 = [0, 10][round % 2];
                let mut text = String::from(HEADER);
                for k in 0..1 + lines.below(2) {
                    text.push_str(&function(&mut lines, k, 0, 0));
                }
                text
            }
            1 => {
                let mut opts = Options::new(Flavor::Amdgpu);
                opts.max_blocks = 12;
                opts.unreachable = round % 2 == 0;
                let n = 1 + rng.below(2);
                let text = module(&mut rng, n, &opts);
                if rng.chance(1, 2) {
                    damaged(&mut rng, &text)
                } else {
                    text
                }
            }
            _ => {
                let mut text = String::from(HEADER);
                text.push_str(&diamond(&mut rng, 0));
                text
            }
        };
        let Ok((m, wrong, facts)) = Parser::new("t.ll", &text).parse_module_noted() else {
            continue;
        };
        NO_FIRST_PREDS.store(true, Relaxed);
        let counted = crate::wellformed::check_module(&m, &wrong, &facts, false)
            .map_err(|e| format!("{e:?}"));
        NO_FIRST_PREDS.store(false, Relaxed);
        let direct = crate::wellformed::check_module(&m, &wrong, &facts, false)
            .map_err(|e| format!("{e:?}"));
        assert_eq!(direct, counted, "\n{text}");
        if direct.is_ok() {
            ok += 1;
        } else {
            failed += 1;
        }
        small += m
            .functions
            .iter()
            .flat_map(|f| (0..f.insts.len() as u32).map(move |k| (f, k)))
            .filter(|&(f, k)| {
                f.insts[k as usize].op == crate::Opcode::Phi
                    && f.inst_blocks(crate::InstId(k)).len() <= 2
            })
            .count();
    }
    eprintln!("{ok} accepted, {failed} rejected, {small} phis of one or two entries");
    assert!(
        ok > 500 && failed > 500 && small > 1000,
        "{ok} accepted, {failed} rejected, {small} small phis"
    );
}
