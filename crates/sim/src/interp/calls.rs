//! Calls: intrinsics and builtins by their classification, token definitions, communicating
//! operations (the thread waits for its converged threads), and calls into functions of the module.

use super::*;

impl Exec<'_, '_> {
    pub(crate) fn call(&mut self, t: &mut Thread, i: usize) {
        let f = self.p.f;
        let inst = &f.insts[i];
        let ops = f.operands(InstId(i as u32));
        let vals: Vec<Val> = ops.iter().map(|&o| self.value(t, o, inst.ty)).collect();
        let Kind::Call(kind) = self.p.kinds[i] else {
            let v = self.per_thread(t, i, inst.ty);
            return self.done_call(t, i, v);
        };
        if let CallKind::Defined(fid) = kind {
            return self.call_defined(t, i, fid, vals);
        }
        // The opaque-pointer call syntax lets a call pass fewer arguments than the intrinsic
        // takes (LLVM's verifier rejects it); stop the thread instead of reading past them.
        let needs = match kind {
            CallKind::MbcntLo | CallKind::MbcntHi | CallKind::MinMax(_) => 2,
            CallKind::InverseBallot | CallKind::Ctpop | CallKind::Abs => 1,
            _ => 0,
        };
        if vals.len() < needs {
            let name = callee_name_of(self.p.m, f, InstId(i as u32));
            let msg = format!(
                "@{name} called with {} arguments, it takes {needs}",
                vals.len()
            );
            return self.finish(t, Status::Error(msg));
        }
        let w = self.p.int_width(inst.ty);
        let v = match kind {
            CallKind::TokEntry => {
                // The simulated function is entered by the whole group; a callee by the threads
                // of converged call instances (its activation's base class).
                let c = match t.fr.tracker.base() {
                    NONE => self.classes.intern(Key::Entry),
                    base => base,
                };
                return self.done_token(t, i, c);
            }
            CallKind::TokAnchor => {
                let mut bc = t.fr.bclass;
                if let Some(&part) = self.opts.anchor_parts.get(t.tid as usize) {
                    let pc = self.classes.intern(Key::Part(part));
                    bc = self.classes.intern(Key::With(bc, pc));
                }
                let c = self.classes.intern(Key::Anchor(i as u32, bc));
                return self.done_token(t, i, c);
            }
            CallKind::TokLoop => {
                let p = match self.p.ctrl[i].map(|v| self.value(t, v, inst.ty)) {
                    Some(Val::Tok(p)) => p,
                    _ => NONE,
                };
                let n = t.heart_count.entry((i as u32, p)).or_insert(0);
                *n += 1;
                let n = *n;
                let c = self.classes.intern(Key::Heart(i as u32, p, n));
                return self.done_token(t, i, c);
            }
            CallKind::Comm(_) => {
                // Wait for the converged threads.
                let key = self.use_class(t, i);
                t.pending = Some((i as u32, key, vals));
                if t.stack.is_empty() {
                    t.waits.push((InstId(i as u32), key));
                }
                t.state = TState::Waiting;
                return;
            }
            CallKind::WorkItem(q) => {
                let dim = match q.dim {
                    Some(d) => d as u128,
                    None => vals.first().map_or(0, Val::bits),
                };
                builtins::answer(q.q, dim, t.tid, self.opts, w, self.progs[0].0.work_group)
            }
            CallKind::LaneId => Val::I((t.tid % self.opts.target.wave_size()) as u128 & mask(w)),
            CallKind::MbcntLo | CallKind::MbcntHi => {
                let lane = t.tid % 64;
                let (m, acc) = (vals[0].bits() as u64 & 0xFFFF_FFFF, vals[1].bits());
                let below = if kind == CallKind::MbcntLo {
                    if lane >= 32 {
                        m
                    } else {
                        m & ((1u64 << lane) - 1)
                    }
                } else if lane <= 32 {
                    0
                } else {
                    m & ((1u64 << (lane - 32)) - 1)
                };
                Val::I((below.count_ones() as u128 + acc) & mask(w))
            }
            CallKind::WaveSize => Val::I(self.opts.target.wave_size() as u128 & mask(w)),
            CallKind::Defined(_) => Val::Undef,
            CallKind::Pure => self.pure_hash(i, &vals, inst.ty),
            CallKind::Uniform => self.pure_hash(i, &[], inst.ty),
            CallKind::PerThread => self.per_thread(t, i, inst.ty),
            CallKind::InverseBallot => Val::I((vals[0].bits() >> (t.tid % 64)) & 1),
            CallKind::Identity => vals.first().cloned().unwrap_or(Val::Undef),
            CallKind::Ctpop => lanewise1(&vals[0], &|x| Val::I(x.count_ones() as u128)),
            CallKind::Abs => {
                lanewise1(&vals[0], &|x| Val::I((sext(x, w).unsigned_abs()) & mask(w)))
            }
            CallKind::MinMax(r) => lanewise2(&vals[0], &vals[1], |a, b| {
                let (sa, sb) = (sext(a, w), sext(b, w));
                Val::I(match r {
                    Red::Min => {
                        if sa <= sb {
                            a
                        } else {
                            b
                        }
                    }
                    Red::Max => {
                        if sa >= sb {
                            a
                        } else {
                            b
                        }
                    }
                    Red::UMin => a.min(b),
                    _ => a.max(b),
                })
            }),
        };
        self.done_call(t, i, v);
    }

    /// The class of a convergent operation's (or a call's) dynamic instance `i` of `t`: with a
    /// `convergencectrl` token, the operation and the token's class; otherwise the operation and
    /// the class of its block instance.
    pub(crate) fn use_class(&mut self, t: &mut Thread, i: usize) -> ClassId {
        let ty = self.p.f.insts[i].ty;
        match self.p.ctrl[i].map(|v| self.value(t, v, ty)) {
            Some(Val::Tok(tok)) => {
                // A valid program never executes a controlled operation twice with the same
                // token value (the static rules on cycles); an invalid one would make
                // converged-with contradictory. Count such executions like a heart does and say
                // so.
                let n = t.heart_count.entry((i as u32, tok)).or_insert(0);
                *n += 1;
                let n = *n;
                let tok = if n == 1 {
                    tok
                } else {
                    self.note(format!(
                        "@{} was executed twice with the same token value: the function breaks \
                         the static rules on cycles; the n-th executions are taken as converged",
                        callee_name_of(self.p.m, self.p.f, InstId(i as u32))
                    ));
                    self.classes.intern(Key::Heart(i as u32, tok, n))
                };
                self.classes.intern(Key::Use(i as u32, tok))
            }
            _ => self.classes.intern(Key::Use(i as u32, t.fr.bclass)),
        }
    }

    /// Enters function `fid` of the module for call `i`: a new activation whose instances are
    /// converged exactly for the threads of converged call instances (its base class is the call
    /// instance's class; "Convergent Operation Semantics": the callee's `entry` token takes the
    /// call site's converged threads). Recursion is bounded by the step limit.
    pub(crate) fn call_defined(&mut self, t: &mut Thread, i: usize, fid: u32, vals: Vec<Val>) {
        let Some(&k) = self.prog_of.get(&fid) else {
            let v = self.per_thread(t, i, self.p.f.insts[i].ty);
            return self.done_call(t, i, v);
        };
        let (p, _) = self.progs[k as usize];
        let nb = p.f.blocks.len();
        // Activations are kept in memory: bound what the thread's call stack holds (the step limit
        // alone would allow 100000 activations of a large function).
        let size = p.f.insts.len() + nb;
        let budget = (1usize << 24) / self.opts.threads.max(1) as usize;
        if t.held + size > budget {
            let name = sym(p.m, p.f.name);
            let msg = format!(
                "call stack too deep: entering @{name} at depth {} would hold more than {budget} \
                 values (unbounded recursion?)",
                t.stack.len() + 1
            );
            return self.finish(t, Status::Error(msg));
        }
        t.held += size;
        let cc = self.use_class(t, i);
        let base = self.classes.intern(Key::Frame(cc, k));
        t.produced.insert(base);
        let frame = Frame {
            func: k,
            block: Block(0),
            pos: 0,
            regs: vec![Val::Undef; p.f.insts.len()],
            tracker: Tracker::with_base(nb, base),
            bclass: NONE,
            token_last: HashMap::new(),
            args: Rc::from(vals),
            alloca_mark: t.allocas.len(),
        };
        let caller = std::mem::replace(&mut t.fr, frame);
        t.stack.push(caller);
        self.at(k);
        self.enter(t, Block(0), None);
    }

    /// Defines a token: instance class `c` of token definition `i`. The token value is recorded
    /// with the token's own class, so its instances are converged exactly as the communicating
    /// operations using it see them (for a heart outside its cycle's header too, where the block's
    /// maximal class would say otherwise).
    pub(crate) fn done_token(&mut self, t: &mut Thread, i: usize, c: ClassId) {
        t.fr.token_last.insert(i as u32, c);
        t.produced.insert(c);
        t.fr.regs[i] = Val::Tok(c);
        t.fr.pos += 1;
        if t.stack.is_empty() {
            t.records.push(Record {
                inst: InstId(i as u32),
                class: c,
                val: Val::Tok(c),
            });
        }
    }

    pub(crate) fn done_call(&mut self, t: &mut Thread, i: usize, v: Val) {
        let inst = &self.p.f.insts[i];
        t.fr.regs[i] = v.clone();
        t.fr.pos += 1;
        if !matches!(self.p.ty(inst.ty), Type::Void) {
            self.record(t, i, v);
        }
    }
}
