//! Calls: intrinsics and builtins by their classification, token definitions, communicating
//! operations (the thread waits for its converged threads), and calls into functions of the module.

use super::*;

impl Exec<'_, '_> {
    pub(crate) fn call(&mut self, t: &mut Thread, i: usize) {
        let f = self.p.f;
        let inst = &f.insts[i];
        let ops = &f.operands[inst.operands.range()];
        let vals: Vec<Val> = ops.iter().map(|&o| self.value(t, o, inst.ty)).collect();
        let Kind::Call(kind) = self.p.kinds[i] else {
            let v = self.per_thread(t, i, inst.ty);
            return self.done_call(t, i, v);
        };
        if kind == CallKind::PerThread
            && let Some(v) = self.call_defined(t, i, &vals)
        {
            return self.done_call(t, i, v);
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
                let c = self.classes.intern(Key::Entry);
                self.token(t, i, c)
            }
            CallKind::TokAnchor => {
                let c = self.classes.intern(Key::Anchor(i as u32, t.bclass));
                self.token(t, i, c)
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
                self.token(t, i, c)
            }
            CallKind::Comm(_) => {
                // Wait for the converged threads.
                let key = match self.p.ctrl[i].map(|v| self.value(t, v, inst.ty)) {
                    Some(Val::Tok(tok)) => {
                        // A valid program never executes a controlled operation twice with the
                        // same token value (the static rules on cycles); an invalid one would make
                        // converged-with contradictory. Count such executions like a heart does
                        // and say so.
                        let n = t.heart_count.entry((i as u32, tok)).or_insert(0);
                        *n += 1;
                        let n = *n;
                        let tok = if n == 1 {
                            tok
                        } else {
                            self.note(format!(
                                "@{} was executed twice with the same token value: the function \
                                 breaks the static rules on cycles; the n-th executions are taken \
                                 as converged",
                                callee_name_of(self.p.m, self.p.f, InstId(i as u32))
                            ));
                            self.classes.intern(Key::Heart(i as u32, tok, n))
                        };
                        self.classes.intern(Key::Use(i as u32, tok))
                    }
                    _ => self.classes.intern(Key::Use(i as u32, t.bclass)),
                };
                t.pending = Some((i as u32, key, vals));
                t.waits.push((InstId(i as u32), key));
                t.state = TState::Waiting;
                return;
            }
            CallKind::ThreadId => Val::I(t.tid as u128 & mask(w)),
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
            CallKind::GroupSize => Val::I(self.opts.threads as u128 & mask(w)),
            CallKind::WaveSize => Val::I(self.opts.target.wave_size() as u128 & mask(w)),
            CallKind::Zero => Val::I(0),
            CallKind::Pure => self.pure_hash(i, &vals, inst.ty),
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

    /// Executes a call to a function of the module inline, when the callee is self-contained
    /// (see [`Program::is_self_contained`]); its dynamic instances are not recorded. `None` when the
    /// callee has no body, is not self-contained, or the call nesting is too deep.
    pub(crate) fn call_defined(&mut self, t: &mut Thread, i: usize, vals: &[Val]) -> Option<Val> {
        const MAX_DEPTH: u32 = 32;
        let ci = &self.p.f.calls[self.p.f.insts[i].aux as usize];
        let Value::Func(fid) = ci.callee else {
            return None;
        };
        let m = self.p.m;
        let callee_f = &m.functions[fid.0 as usize];
        if callee_f.is_declaration || callee_f.blocks.is_empty() || self.depth >= MAX_DEPTH {
            return None;
        }
        let prog = {
            let mut cache = self.p.callees.borrow_mut();
            cache
                .entry(fid.0)
                .or_insert_with(|| Rc::new(Program::new(m, callee_f, self.p.target)))
                .clone()
        };
        if !prog.is_self_contained() {
            self.note(format!(
                "calls to @{} are not entered (it communicates, accesses shared memory or uses \
                 tokens): their results are per-thread values",
                sym(m, callee_f.name)
            ));
            return None;
        }
        let h = Hierarchy::llvm(&prog.cfg);
        let mut sub = Thread {
            tid: t.tid,
            block: Block(0),
            pos: 0,
            regs: vec![Val::Undef; callee_f.insts.len()],
            tracker: Tracker::new(callee_f.blocks.len()),
            bclass: NONE,
            state: TState::Running,
            status: None,
            steps: t.steps,
            private: std::mem::take(&mut t.private),
            alloca_next: t.alloca_next,
            produced: HashSet::new(),
            token_last: HashMap::new(),
            heart_count: HashMap::new(),
            occurrence: t.occurrence,
            pending: None,
            blocks: Vec::new(),
            records: Vec::new(),
            waits: Vec::new(),
            ret: None,
        };
        let shared = std::mem::take(&mut self.shared);
        let mut ex = Exec {
            p: &prog,
            h: &h,
            opts: self.opts,
            args: vals,
            classes: &mut *self.classes,
            notes: &mut *self.notes,
            shared,
            depth: self.depth + 1,
        };
        ex.enter(&mut sub, Block(0), None);
        ex.run_thread(&mut sub);
        self.shared = std::mem::take(&mut ex.shared);
        t.private = std::mem::take(&mut sub.private);
        t.alloca_next = sub.alloca_next;
        t.occurrence = sub.occurrence;
        t.steps = sub.steps;
        match sub.status {
            Some(Status::Returned(_)) => Some(sub.ret.unwrap_or(Val::Undef)),
            Some(Status::StepLimit) => {
                // The caller stops at its next step.
                Some(Val::Undef)
            }
            _ => Some(Val::Undef),
        }
    }

    pub(crate) fn token(&mut self, t: &mut Thread, i: usize, c: ClassId) -> Val {
        t.token_last.insert(i as u32, c);
        t.produced.insert(c);
        Val::Tok(c)
    }

    pub(crate) fn done_call(&mut self, t: &mut Thread, i: usize, v: Val) {
        let inst = &self.p.f.insts[i];
        t.regs[i] = v.clone();
        t.pos += 1;
        if !matches!(self.p.ty(inst.ty), Type::Void) {
            self.record(t, i, v);
        }
    }
}
