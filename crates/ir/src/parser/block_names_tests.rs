//! Tests: block names and their references: which block each reference names, and which error a body
//! whose names do not fit together gets first. The reader enters a block name at its first sight
//! (label or reference) and resolves the references at the body's end; these tests hold it to the
//! plain rule it must keep: a reference to a name defined before it is resolved there and then, a
//! label or value defined twice is an error at the second definition, a block reference to a value
//! is an error at that reference, and the other references are resolved at the body's end in the
//! order of the text, where the first that names nothing ("use of undefined value") or names a
//! value where a block is wanted is the error.
//!
//! A random generator writes small functions from a few names (so that names collide, are
//! referenced before and after their definition, or never defined), and a model applies the rule
//! above to the same sequence of definitions and references.

use crate::{FuncId, Module};
use converge_graph::Block;

use converge_gen::rng::Rng;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Kind {
    Block(usize),
    Value,
}

/// The first error the rule gives: message part and byte offset.
type Expected = Option<(String, usize)>;

/// One function as it is written, with the rule applied as the text goes.
struct Writer {
    text: String,
    defined: std::collections::HashMap<String, Kind>,
    /// References not resolved where they are written: (name, wants a block, offset).
    pending: Vec<(String, bool, usize)>,
    /// The block each block reference names (`None`: resolved at the end), in text order.
    refs: Vec<(String, Option<usize>)>,
    next_num: u32,
    blocks: usize,
    error: Expected,
}

impl Writer {
    fn fail(&mut self, msg: &str, at: usize) {
        if self.error.is_none() {
            self.error = Some((msg.to_string(), at));
        }
    }

    /// A local name `%name` or `%7` written at the end of the text (at a definition, `numbered`
    /// says whether the number's order applies).
    fn number_ok(&mut self, name: &str, at: usize) -> bool {
        if let Ok(n) = name.parse::<u32>() {
            if n < self.next_num {
                self.fail(&format!("numbered value `%{n}` out of order"), at);
                return false;
            }
            self.next_num = n + 1;
        }
        true
    }

    fn label(&mut self, name: Option<&str>) {
        let at = self.text.len();
        let block = self.blocks;
        self.blocks += 1;
        let name = match name {
            Some(n) => {
                self.text.push_str(&format!("{n}:\n"));
                if !self.number_ok(n, at) {
                    return;
                }
                n.to_string()
            }
            None => {
                let n = self.next_num;
                self.next_num += 1;
                n.to_string()
            }
        };
        if self.defined.contains_key(&name) {
            self.fail("redefinition of a local name", at);
        }
        self.defined.entry(name).or_insert(Kind::Block(block));
    }

    /// Writes `%name = ` (or nothing, for an unnamed value); the name is defined by `define`
    /// after the instruction's operands, as the reader does.
    fn value_def(&mut self, name: Option<&str>) -> Option<(String, usize)> {
        self.text.push_str("  ");
        let at = self.text.len();
        if let Some(n) = name {
            self.text.push_str(&format!("%{n} = "));
        }
        name.map(|n| (n.to_string(), at))
    }

    fn define(&mut self, def: Option<(String, usize)>) {
        let name = match def {
            Some((n, at)) => {
                if !self.number_ok(&n, at) {
                    return;
                }
                if self.defined.contains_key(&n) {
                    self.fail("redefinition of a local name", at);
                }
                n
            }
            None => {
                let n = self.next_num;
                self.next_num += 1;
                n.to_string()
            }
        };
        self.defined.entry(name).or_insert(Kind::Value);
    }

    /// `%name` as an operand (a value is wanted, any local will do for the reader).
    fn operand(&mut self, name: &str) {
        let at = self.text.len();
        self.text.push_str(&format!("%{name}"));
        if !self.defined.contains_key(name) {
            self.pending.push((name.to_string(), false, at));
        }
    }

    /// `%name` where a block is wanted.
    fn block_ref(&mut self, name: &str) {
        let at = self.text.len();
        self.text.push_str(&format!("%{name}"));
        match self.defined.get(name) {
            Some(Kind::Block(b)) => self.refs.push((name.to_string(), Some(*b))),
            Some(Kind::Value) => {
                self.fail("expected a basic block label, but this names a value", at);
                self.refs.push((name.to_string(), None));
            }
            None => {
                self.pending.push((name.to_string(), true, at));
                self.refs.push((name.to_string(), None));
            }
        }
    }

    /// The body's end: the pending references in order.
    fn end(&mut self) {
        self.text.push_str("}\n");
        for (name, block, at) in std::mem::take(&mut self.pending) {
            match (self.defined.get(&name), block) {
                (None, _) => {
                    let text = name.trim_matches('"');
                    self.fail(&format!("use of undefined value `%{text}`"), at)
                }
                (Some(Kind::Value), true) => {
                    self.fail("expected a basic block label, but this names a value", at)
                }
                _ => {}
            }
        }
    }

    /// The blocks the block references name, in text order (after `end`, with no error).
    fn ref_blocks(&self) -> Vec<usize> {
        self.refs
            .iter()
            .map(|(name, b)| match (b, self.defined.get(name)) {
                (Some(b), _) | (None, Some(Kind::Block(b))) => *b,
                _ => usize::MAX,
            })
            .collect()
    }
}

/// A random function body over a few names, numbered ones included.
fn function(rng: &mut Rng, k: usize) -> Writer {
    let names = ["b0", "b1", "b2", "b3", "v0", "v1", "x", "\"q r\""];
    let mut w = Writer {
        text: format!("define void @f{k}(i32 %a) {{\n"),
        defined: [("a".to_string(), Kind::Value)].into_iter().collect(),
        pending: Vec::new(),
        refs: Vec::new(),
        next_num: 0,
        blocks: 0,
        error: None,
    };
    // Most names fit together (distinct labels, references to them, fresh value names); the
    // rest are drawn from a few names, numbers among them, so that they collide.
    let blocks = 1 + rng.below(5);
    let labels: Vec<Option<String>> = (0..blocks)
        .map(|bi| match rng.below(16) {
            0 if bi > 0 => None,
            1 => Some(names[rng.below(names.len())].to_string()),
            _ => Some(format!("b{bi}")),
        })
        .collect();
    let pick = |rng: &mut Rng, w: &Writer| -> String {
        match rng.below(5) {
            0 => (w.next_num as usize + rng.below(3)).to_string(),
            1 => rng.below(w.next_num as usize + 3).to_string(),
            _ => names[rng.below(names.len())].to_string(),
        }
    };
    let block = |rng: &mut Rng, w: &Writer| -> String {
        match labels[rng.below(blocks)].as_ref() {
            Some(l) if rng.below(16) > 0 => l.clone(),
            _ => pick(rng, w),
        }
    };
    let value = |rng: &mut Rng, w: &Writer| -> String {
        if rng.below(16) == 0 {
            return pick(rng, w);
        }
        let values: Vec<&String> = w
            .defined
            .iter()
            .filter(|(_, k)| **k == Kind::Value)
            .map(|(n, _)| n)
            .collect();
        let mut values: Vec<&String> = values;
        values.sort();
        values[rng.below(values.len())].clone()
    };
    let mut fresh = 0;
    let mut new_value = |rng: &mut Rng, w: &Writer| -> Option<String> {
        match rng.below(16) {
            0 | 1 => None,
            2 => Some(pick(rng, w)),
            _ => {
                fresh += 1;
                Some(format!("v{fresh}"))
            }
        }
    };
    for label in &labels {
        w.label(label.as_deref());
        if rng.below(3) == 0 {
            let n = new_value(rng, &w).unwrap_or_else(|| "p".to_string());
            let def = w.value_def(Some(&n));
            w.text.push_str("phi i32 [ 0, ");
            let b = block(rng, &w);
            w.block_ref(&b);
            w.text.push_str(" ], [ ");
            let v = value(rng, &w);
            w.operand(&v);
            w.text.push_str(", ");
            let b = block(rng, &w);
            w.block_ref(&b);
            w.text.push_str(" ]\n");
            w.define(def);
        }
        for _ in 0..rng.below(3) {
            let n = new_value(rng, &w);
            let def = w.value_def(n.as_deref());
            w.text.push_str("add i32 ");
            let v = value(rng, &w);
            w.operand(&v);
            w.text.push_str(", 1\n");
            w.define(def);
        }
        match rng.below(4) {
            0 => w.text.push_str("  ret void\n"),
            1 => {
                w.text.push_str("  br label ");
                let b = block(rng, &w);
                w.block_ref(&b);
                w.text.push('\n');
            }
            2 => {
                w.text.push_str("  br i1 true, label ");
                let b = block(rng, &w);
                w.block_ref(&b);
                w.text.push_str(", label ");
                let b = block(rng, &w);
                w.block_ref(&b);
                w.text.push('\n');
            }
            _ => {
                w.text.push_str("  switch i32 %a, label ");
                let b = block(rng, &w);
                w.block_ref(&b);
                w.text.push_str(" [\n    i32 1, label ");
                let b = block(rng, &w);
                w.block_ref(&b);
                w.text.push_str("\n    i32 2, label ");
                let b = block(rng, &w);
                w.block_ref(&b);
                w.text.push_str("\n  ]\n");
            }
        }
    }
    w.end();
    w
}

/// The blocks named by a function's instructions, in order (what `Writer::ref_blocks` expects).
fn actual_refs(m: &Module, f: FuncId) -> Vec<usize> {
    let func = m.func(f);
    let mut out = Vec::new();
    for b in 0..func.num_blocks() {
        for i in func.block_insts(Block(b as u32)) {
            out.extend(func.inst_blocks(i).iter().map(|b| b.index()));
        }
    }
    out
}

/// Modules of one to three random functions: the first error is the model's (message and
/// place); a module the model accepts is read with every block reference naming the block the
/// model says.
#[test]
fn block_names_follow_the_rule() {
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let (mut errors, mut read) = (0, 0);
    let mut seen = std::collections::HashSet::new();
    for _ in 0..6000 {
        let funcs: Vec<Writer> = (0..1 + rng.below(3))
            .map(|k| function(&mut rng, k))
            .collect();
        let mut text = String::new();
        let mut expected: Expected = None;
        for w in &funcs {
            if expected.is_none()
                && let Some((msg, at)) = &w.error
            {
                expected = Some((msg.clone(), text.len() + at));
            }
            text.push_str(&w.text);
        }
        // The reader alone (the module's checks would reject most of these modules later).
        let result = super::Parser::new("t.ll", &text).parse_module();
        match (result.map(|(m, _)| m), expected) {
            (Err(d), Some((msg, at))) => {
                let d = *d;
                assert!(d.message.contains(&msg), "{text}\ngot {d:?}\nwant {msg}");
                assert_eq!(d.labels[0].span.start as usize, at, "{text}\n{d:?}");
                seen.insert(msg.split('`').next().unwrap_or("").to_string());
                errors += 1;
            }
            (Err(d), None) => panic!("{text}\n{d:?}\nthe rule says it reads"),
            (Ok(_), Some(e)) => panic!("{text}\nread, but the rule says {e:?}"),
            (Ok(m), None) => {
                for (k, w) in funcs.iter().enumerate() {
                    assert_eq!(
                        actual_refs(&m, FuncId(k as u32)),
                        w.ref_blocks(),
                        "{text}\n@f{k}"
                    );
                }
                read += 1;
            }
        }
    }
    // Every kind of error was met, and many modules were read.
    assert_eq!(seen.len(), 4, "{seen:?}");
    assert!(errors > 1000 && read > 1000, "{errors} errors, {read} read");
}

/// A few cases by hand, each error at the place the rule gives.
#[test]
fn first_error_in_text_order() {
    let cases: &[(&str, &str, &str)] = &[
        // The undefined block is referenced before the undefined value.
        (
            "define void @f(i32 %a) {\nb0:\n  br i1 true, label %nb, label %b1\nb1:\n  %x = add i32 %nv, 1\n  ret void\n}\n",
            "use of undefined value `%nb`",
            "%nb,",
        ),
        // The undefined value is referenced before the undefined block.
        (
            "define void @f(i32 %a) {\nb0:\n  %x = add i32 %nv, 1\n  br label %nb\n}\n",
            "use of undefined value `%nv`",
            "%nv,",
        ),
        // A block referenced forward and then defined as a value: the first reference.
        (
            "define void @f(i32 %a) {\nb0:\n  br label %x\nb1:\n  %x = add i32 %a, 1\n  br label %b0\n}\n",
            "names a value",
            "%x\n",
        ),
        // The same, after a value fix-up that resolves.
        (
            "define void @f(i32 %a) {\nb0:\n  %y = add i32 %x, 1\n  br label %x\nb1:\n  %x = add i32 %a, 1\n  br label %b0\n}\n",
            "names a value",
            "%x\nb1",
        ),
        // A block referenced after a value of its name: at that reference, before the body's end.
        (
            "define void @f(i32 %a) {\nb0:\n  br label %nb\nb1:\n  %x = add i32 %a, 1\n  br label %x\n}\n",
            "names a value",
            "%x\n}",
        ),
        // A label defined twice, the first time after a forward reference.
        (
            "define void @f(i32 %a) {\nb0:\n  br label %b1\nb1:\n  br label %b1\nb1:\n  ret void\n}\n",
            "redefinition of a local name",
            "b1:\n  ret",
        ),
        // A label after a value of its name that was referenced as a block first.
        (
            "define void @f(i32 %a) {\nb0:\n  br label %x\nb1:\n  %x = add i32 %a, 1\n  br label %b0\nx:\n  ret void\n}\n",
            "redefinition of a local name",
            "x:\n",
        ),
        // A value named like a block defined before it.
        (
            "define void @f(i32 %a) {\nb0:\n  %b0 = add i32 %a, 1\n  ret void\n}\n",
            "redefinition of a local name",
            "%b0 =",
        ),
        // Numbered: a block referenced forward, then the number taken by a value.
        (
            "define void @f(i32 %a) {\nb0:\n  br label %0\nb1:\n  %0 = add i32 %a, 1\n  br label %b0\n}\n",
            "names a value",
            "%0\n",
        ),
        // Numbered: the same with an unnamed value taking the number.
        (
            "define void @f(i32 %a) {\nb0:\n  br label %0\nb1:\n  add i32 %a, 1\n  br label %b0\n}\n",
            "names a value",
            "%0\n",
        ),
        // A block referenced by number and never defined, after one that is.
        (
            "define void @f(i32 %a) {\nb0:\n  br i1 true, label %0, label %1\n0:\n  ret void\n}\n",
            "use of undefined value `%1`",
            "%1\n",
        ),
    ];
    for (text, msg, at) in cases {
        let d = crate::parse("t.ll", text.to_string()).expect_err(text);
        assert!(d.message.contains(msg), "{text}\n{:?}", d.message);
        let want = text.find(at).unwrap_or(usize::MAX);
        assert_eq!(d.labels[0].span.start as usize, want, "{text}\n{d:?}");
    }
}

/// Forward references resolved at the body's end name the right blocks, also where a
/// `catchswitch` moves its unwind destination in front of its handlers, and values that name
/// blocks (a phi's incoming block as an operand of a call) are resolved too.
#[test]
fn forward_references_name_their_blocks() {
    let text = "declare i32 @__gxx_personality_v0(...)\ndeclare void @g()\n\
        define void @f() personality ptr @__gxx_personality_v0 {\n\
        entry:\n  invoke void @g() to label %cont unwind label %disp\n\
        cont:\n  ret void\n\
        disp:\n  %cs = catchswitch within none [label %h1, label %h2] unwind label %up\n\
        h1:\n  %p1 = catchpad within %cs []\n  catchret from %p1 to label %cont\n\
        h2:\n  %p2 = catchpad within %cs []\n  catchret from %p2 to label %cont\n\
        up:\n  %c = cleanuppad within none []\n  cleanupret from %c unwind to caller\n}\n";
    let m = crate::parse("t.ll", text.to_string()).expect("reads");
    let f = m.function_by_name("f").expect("@f");
    let func = m.func(f);
    let name = |b: Block| m.block_name(f, b);
    let succs = |i: usize| -> Vec<String> {
        func.succs(Block(i as u32))
            .iter()
            .map(|&b| name(b))
            .collect()
    };
    assert_eq!(succs(0), ["cont", "disp"]);
    // LLVM's successor order of a `catchswitch`: the unwind destination first.
    assert_eq!(succs(2), ["up", "h1", "h2"]);
    assert_eq!(succs(3), ["cont"]);
}
