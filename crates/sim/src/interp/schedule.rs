//! The scheduler: threads run until they reach a communicating operation or a shared-memory access
//! and wait there with the class of their dynamic instance; a waiting group is released once no other
//! live thread can still produce an instance of the same class (static reachability, then running the
//! blocking threads ahead on copies).

use super::*;

/// Runs `prog` for a group of threads under hierarchy `h` (callees under LLVM's hierarchy).
pub fn run(prog: &Program<'_>, h: &Hierarchy, opts: &Options) -> Run {
    run_with(prog, h, &[], opts)
}

/// [`run`] with a chosen cycle hierarchy for some callees (the others use LLVM's):
/// `callee_hierarchies` pairs a function of [`Program::callee_functions`] with a hierarchy of its
/// CFG ([`function_cfg`]), for example from [`crate::hierarchy::enumerate`].
pub fn run_with(
    prog: &Program<'_>,
    h: &Hierarchy,
    callee_hierarchies: &[(FuncId, &Hierarchy)],
    opts: &Options,
) -> Run {
    let f = prog.f;
    // Reachability that avoids headers depends on the hierarchy.
    prog.reach.borrow_mut().clear();
    let mut classes = Classes::default();
    let mut notes = Vec::new();
    // Arguments: uniform across the group.
    let mut args = Vec::new();
    let given_val = |k: usize, given: ArgValue| {
        let ty = f.params[k].ty;
        match (given, prog.ty(ty)) {
            (ArgValue::Int(x), Type::Ptr(_)) => Val::P(x as u64),
            (ArgValue::Int(x), _) => Val::I((x as u128) & mask(prog.int_width(ty))),
            (ArgValue::Float(x), _) => Val::F(x),
        }
    };
    for (k, p) in f.params.iter().enumerate() {
        let given = opts.args.get(k).copied().flatten();
        let v = match (given, prog.ty(p.ty)) {
            (Some(g), _) => given_val(k, g),
            (None, Type::Ptr(_)) => Val::P(0x0100_0000_0000 + (k as u64) * 0x1000_0000),
            (None, Type::Float | Type::Half | Type::BFloat | Type::Double) => {
                Val::F((mix2(opts.seed, k as u64) % 2001) as f64 / 8.0 - 125.0)
            }
            (None, _) => {
                // Small values, so loop bounds stay reasonable.
                Val::I((mix2(opts.seed, k as u64) % 17) as u128 & mask(prog.int_width(p.ty)))
            }
        };
        args.push(v);
    }
    if f.blocks.is_empty() {
        notes.push("the function has no body".to_string());
        return Run {
            threads: Vec::new(),
            classes,
            groups: Vec::new(),
            controlled: prog.controlled,
            args,
            notes,
            violations: Vec::new(),
        };
    }
    // Every function the run may enter: the simulated one first (under `h`), then its callees
    // (each under LLVM's hierarchy).
    let callees = prog.callees();
    let mut progs: Vec<(&Program<'_>, &Hierarchy)> = vec![(prog, h)];
    let mut prog_of: HashMap<u32, u32> = HashMap::from([(prog.func.0, 0)]);
    for c in callees.iter() {
        prog_of.insert(c.prog.func.0, progs.len() as u32);
        let ch = callee_hierarchies
            .iter()
            .find(|x| x.0 == c.prog.func)
            .map_or(&c.h, |x| x.1);
        // Header-avoiding reachability depends on the hierarchy.
        c.prog.reach.borrow_mut().clear();
        progs.push((&c.prog, ch));
    }
    let mut ex = Exec {
        p: prog,
        h,
        progs,
        prog_of,
        opts,
        classes: &mut classes,
        notes: &mut notes,
        violations: Vec::new(),
        shared: HashMap::new(),
        objects: Vec::new(),
        fault: None,
    };
    match ex.build_objects() {
        Ok(buffers) => {
            for (k, addr) in buffers {
                args[k] = Val::P(addr);
            }
        }
        Err(e) => {
            let violations = vec![e];
            return Run {
                threads: Vec::new(),
                classes,
                groups: Vec::new(),
                controlled: prog.controlled,
                args,
                notes,
                violations,
            };
        }
    }
    let args: Rc<[Val]> = Rc::from(args);
    // Per-thread parameters (`Options::thread_args`), for the function's own activation.
    let thread_args = |tid: u32| -> Rc<[Val]> {
        if opts.thread_args.iter().all(Vec::is_empty) {
            return args.clone();
        }
        let mut mine = args.to_vec();
        for (k, vs) in opts.thread_args.iter().enumerate().take(mine.len()) {
            if !vs.is_empty() {
                mine[k] = given_val(k, vs[tid as usize % vs.len()]);
            }
        }
        Rc::from(mine)
    };
    let nb = f.blocks.len();
    let mut threads: Vec<Thread> = (0..opts.threads)
        .map(|tid| Thread {
            tid,
            fr: Frame {
                func: 0,
                block: Block(0),
                pos: 0,
                regs: vec![Val::Undef; f.insts.len()],
                tracker: Tracker::new(nb),
                bclass: NONE,
                token_last: HashMap::new(),
                args: thread_args(tid),
                alloca_mark: 0,
            },
            stack: Vec::new(),
            held: 0,
            state: TState::Running,
            status: None,
            steps: 0,
            private: HashMap::new(),
            alloca_next: PRIVATE_BASE,
            allocas: Vec::new(),
            produced: HashSet::new(),
            heart_count: HashMap::new(),
            occurrence: 0,
            pending: None,
            blocks: Vec::new(),
            records: Vec::new(),
            waits: Vec::new(),
            ops: Vec::new(),
            ret: None,
        })
        .collect();
    for t in threads.iter_mut() {
        ex.enter(t, Block(0), None);
    }
    let mut groups = Vec::new();
    let mut fallbacks = 0u32;
    let mut speculations = 0u32;
    loop {
        for t in threads.iter_mut() {
            if t.state == TState::Running {
                ex.run_thread(t);
            }
        }
        // Everyone waits or is done: release the groups nobody else can still join.
        let mut keys: Vec<(u32, ClassId)> = Vec::new();
        for t in &threads {
            if let (TState::Waiting, Some((i, c, _))) = (&t.state, &t.pending)
                && !keys.contains(&(*i, *c))
            {
                keys.push((*i, *c));
            }
        }
        if keys.is_empty() {
            break;
        }
        let mut released = Vec::new();
        for &(i, c) in &keys {
            let blocked = threads.iter().any(|t| {
                t.state == TState::Waiting
                    && t.pending.as_ref().is_some_and(|p| (p.0, p.1) != (i, c))
                    && ex.could_produce_use(t, i, c)
            });
            if !blocked {
                released.push((i, c));
            }
        }
        if released.is_empty() {
            // The static test holds every group back. Look ahead: run each blocking thread on a
            // copy (its own pending operation released with its current group) and see whether it
            // really reaches the group's instance.
            for &(i, c) in &keys {
                let blocked = threads.iter().any(|t| {
                    t.state == TState::Waiting
                        && t.pending.as_ref().is_some_and(|p| (p.0, p.1) != (i, c))
                        && ex.could_produce_use(t, i, c)
                        && ex.speculate_reaches(&threads, t.tid, (i, c))
                });
                if !blocked {
                    released.push((i, c));
                    break;
                }
            }
            speculations += 1;
        }
        if released.is_empty() {
            fallbacks += 1;
            released.push(keys[0]);
        }
        for (i, c) in released {
            let members: Vec<usize> = (0..threads.len())
                .filter(|&k| {
                    threads[k].state == TState::Waiting
                        && threads[k]
                            .pending
                            .as_ref()
                            .is_some_and(|p| (p.0, p.1) == (i, c))
                })
                .collect();
            let first = &threads[members[0]];
            let (p, _) = ex.progs[first.fr.func as usize];
            let convergent = matches!(p.kinds[i as usize], Kind::Call(CallKind::Comm(_)));
            let stack: Rc<[(FuncId, InstId)]> = first
                .stack
                .iter()
                .map(|fr| {
                    let (cp, _) = ex.progs[fr.func as usize];
                    let at = cp.f.block_range(fr.block).start + fr.pos;
                    (cp.func, InstId(at))
                })
                .collect();
            let func = p.func;
            let gidx = groups.len() as u32;
            ex.release(&mut threads, &members, i);
            if convergent {
                for &k in &members {
                    let val = threads[k].fr.regs.get(i as usize).cloned();
                    threads[k].ops.push(Op {
                        group: gidx,
                        val: val.unwrap_or(Val::Undef),
                    });
                }
            }
            groups.push(Group {
                func,
                inst: InstId(i),
                class: c,
                threads: members.iter().map(|&k| threads[k].tid).collect(),
                convergent,
                stack,
            });
        }
    }
    let violations = std::mem::take(&mut ex.violations);
    if speculations > 0 {
        notes.push(format!(
            "scheduling: {speculations} time{} the static test held every group back; resolved by \
             running the blocking threads ahead on copies",
            if speculations == 1 { "" } else { "s" }
        ));
    }
    if fallbacks > 0 {
        notes.push(format!(
            "scheduling: {fallbacks} time{} every waiting group could still be joined by another thread \
             (static over-approximation); released the first group anyway",
            if fallbacks == 1 { "" } else { "s" }
        ));
    }
    let threads = threads
        .into_iter()
        .map(|t| ThreadRun {
            tid: t.tid,
            blocks: t.blocks,
            records: t.records,
            waits: t.waits,
            ops: t.ops,
            status: t.status.unwrap_or(Status::Error("did not finish".into())),
            steps: t.steps,
        })
        .collect();
    Run {
        threads,
        classes,
        groups,
        controlled: prog.controlled,
        args: args.to_vec(),
        notes,
        violations,
    }
}

impl Exec<'_, '_> {
    /// Runs a copy of thread `tid` ahead (its pending operation released with the threads now
    /// waiting at the same instance, later operations released for the copy alone) and reports
    /// whether it may execute an instance of communicating operation `key.0` in class `key.1`.
    ///
    /// The copy's releases are made with groups that may still be incomplete, so any value they
    /// return (a communicating operation's result, a load of shared memory) may differ from the
    /// real run's. A "no" is therefore only trusted when no such value can steer the copy (see
    /// [`Exec::guess_matters`]); otherwise the answer is "may reach". Trusting it released one
    /// class as two groups: a `@conv` result computed for two of three threads sent the copy out
    /// of the loop, and the group it was blocking was released before the third thread arrived
    /// (oracle seed 49600).
    pub(crate) fn speculate_reaches(
        &mut self,
        threads: &[Thread],
        tid: u32,
        key: (u32, ClassId),
    ) -> bool {
        let saved = self.shared.clone();
        let r = self.speculate(threads, tid, key);
        self.shared = saved;
        r
    }

    pub(crate) fn speculate(&mut self, threads: &[Thread], tid: u32, key: (u32, ClassId)) -> bool {
        let Some(k) = threads.iter().position(|t| t.tid == tid) else {
            return false;
        };
        let Some(pk) = threads[k].pending.as_ref().map(|p| (p.0, p.1)) else {
            return false;
        };
        let mut copy: Vec<Thread> = threads
            .iter()
            .filter(|t| t.pending.as_ref().is_some_and(|p| (p.0, p.1) == pk))
            .cloned()
            .collect();
        let me = copy.iter().position(|t| t.tid == tid).unwrap_or(0);
        let all: Vec<usize> = (0..copy.len()).collect();
        self.release(&mut copy, &all, pk.0);
        let mut guessed = self.guess_matters(pk.0);
        let mut solo = vec![copy.swap_remove(me)];
        let budget = solo[0].steps + self.opts.step_limit.min(100_000);
        loop {
            let t = &mut solo[0];
            if t.state == TState::Running {
                if t.steps >= budget {
                    return true;
                }
                self.run_thread(t);
            }
            match &solo[0].pending {
                Some(p) if solo[0].state == TState::Waiting => {
                    if (p.0, p.1) == key {
                        return true;
                    }
                    let i = p.0;
                    self.release(&mut solo, &[0], i);
                    guessed |= self.guess_matters(i);
                }
                // Finished without reaching the instance: trusted only on real values.
                _ => return guessed,
            }
        }
    }

    /// Whether the value released operation `i` gave its thread (of the activation [`Exec::at`]
    /// last selected, as `release` leaves it) may steer where the thread goes: whether some
    /// branch, switch or return, a store, or a call into the module uses it, directly or through
    /// other instructions (a static forward slice, so an over-approximation). A result that only
    /// feeds other values cannot change whether the copy reaches an instance.
    fn guess_matters(&self, i: u32) -> bool {
        let f = self.p.f;
        if matches!(self.p.ty(f.insts[i as usize].ty), Type::Void) {
            return false;
        }
        let mut tainted = vec![false; f.insts.len()];
        tainted[i as usize] = true;
        let mut changed = true;
        while changed {
            changed = false;
            for (k, inst) in f.insts.iter().enumerate() {
                if tainted[k]
                    || !f
                        .operands(InstId(k as u32))
                        .iter()
                        .any(|o| matches!(o, Value::Inst(x) if tainted[x.0 as usize]))
                {
                    continue;
                }
                if inst.op.is_terminator()
                    || inst.op == Opcode::Store
                    || matches!(self.p.kinds[k], Kind::Call(CallKind::Defined(_)))
                {
                    return true;
                }
                tainted[k] = true;
                changed = true;
            }
        }
        false
    }

    /// The activation a class belongs to: `NONE` for the simulated function, else the callee
    /// activation's [`Key::Frame`].
    pub(crate) fn base_of(&self, mut c: ClassId) -> ClassId {
        loop {
            if c == NONE {
                return NONE;
            }
            c = match self.classes.key(c) {
                Key::Frame(..) => return c,
                Key::Entry | Key::Part(_) => return NONE,
                Key::Block(_, x) | Key::Use(_, x) | Key::Anchor(_, x) | Key::With(x, _) => x,
                Key::Heart(_, p, _) => p,
            };
        }
    }

    /// Could waiting thread `t` still execute an instance of communicating operation `i` in class
    /// `key`? In its current activation this is the static test below; in a caller's activation,
    /// whether `i` is reachable from the call's continuation; in an activation it has not entered,
    /// whether it could still execute the call instance that creates it.
    pub(crate) fn could_produce_use(&mut self, t: &Thread, i: u32, key: ClassId) -> bool {
        let base = self.base_of(key);
        if t.fr.tracker.base() == base {
            self.at(t.fr.func);
            return self.could_produce_use_here(t, i, key);
        }
        if let Some(fr) = t.stack.iter().find(|f| f.tracker.base() == base) {
            self.at(fr.func);
            return self.reaches_from(fr.block, fr.pos + 1, i as usize, None);
        }
        match self.classes.key(base) {
            Key::Frame(cc, _) => match self.classes.key(cc) {
                Key::Use(ci, _) => self.could_produce_use(t, ci, cc),
                _ => true,
            },
            _ => false,
        }
    }

    fn could_produce_use_here(&self, t: &Thread, i: u32, key: ClassId) -> bool {
        let Key::Use(_, c) = self.classes.key(key) else {
            return false;
        };
        let u = i as usize;
        let d = match self.classes.key(c) {
            Key::Block(..) => return self.could_produce_inst(t, u, c),
            Key::Entry | Key::Frame(..) => return self.reaches_inst(t, u, None),
            Key::Anchor(a, _) | Key::Heart(a, _, _) => a as usize,
            _ => return false,
        };
        if d == u {
            // The n-th execution of an operation that reuses its token (invalid programs).
            return self.could_produce_token(t, c);
        }
        if t.fr.token_last.get(&(d as u32)) == Some(&c) {
            // T holds this token value: it must reach U before redefining it.
            self.reaches_inst(t, u, Some(d))
        } else {
            self.could_produce_token(t, c) && self.inst_reaches_inst(d, u, d)
        }
    }

    /// Whether `t` can still reach instruction `u` (later in its block, or along some path), without
    /// executing instruction `avoid` first.
    pub(crate) fn reaches_inst(&self, t: &Thread, u: usize, avoid: Option<usize>) -> bool {
        self.reaches_from(t.fr.block, t.fr.pos, u, avoid)
    }

    /// Whether instruction `u` can be reached after instruction `from`, without executing `avoid`
    /// again.
    pub(crate) fn inst_reaches_inst(&self, from: usize, u: usize, avoid: usize) -> bool {
        let b = self.p.f.insts[from].block;
        self.reaches_from(b, self.p.pos[from] + 1, u, Some(avoid))
    }

    pub(crate) fn reaches_from(&self, b: Block, pos: u32, u: usize, avoid: Option<usize>) -> bool {
        let f = self.p.f;
        let ub = f.insts[u].block;
        let up = self.p.pos[u];
        // `avoid` at a position in [lo, hi) of its block blocks a straight-line walk over it.
        let blocks_walk = |blk: Block, lo: u32, hi: u32| {
            avoid.is_some_and(|a| f.insts[a].block == blk && (lo..hi).contains(&self.p.pos[a]))
        };
        if ub == b && up >= pos && !blocks_walk(b, pos, up) {
            return true;
        }
        if blocks_walk(b, pos, u32::MAX) {
            return false;
        }
        let Some(a) = avoid else {
            return self.p.reaches(self.h, b, ub, false);
        };
        // A walk that avoids `a`'s block, then enters U's block and reaches U without passing `a`.
        let ab = f.insts[a].block;
        if ub == ab && self.p.pos[a] < up {
            return false;
        }
        self.p.reaches_avoiding(b, ub, ab)
    }

    /// Could `t` still execute instruction `i` in a block instance of class `c`?
    pub(crate) fn could_produce_inst(&self, t: &Thread, i: usize, c: ClassId) -> bool {
        if t.fr.bclass == c {
            return self.p.pos[i] > t.fr.pos;
        }
        self.could_produce_block(t, c)
    }

    /// Could `t` still produce a block instance of class `c`?
    pub(crate) fn could_produce_block(&self, t: &Thread, c: ClassId) -> bool {
        let Key::Block(b, ctx) = self.classes.key(c) else {
            return false;
        };
        if t.produced.contains(&c) {
            return false;
        }
        if ctx == t.fr.tracker.base() || t.produced.contains(&ctx) {
            return t.fr.tracker.context(self.h, b) == ctx
                && self.p.reaches(self.h, t.fr.block, b, true);
        }
        let Key::Block(hb, _) = self.classes.key(ctx) else {
            return false;
        };
        self.could_produce_block(t, ctx) && self.p.reaches(self.h, hb, b, true)
    }

    pub(crate) fn could_produce_token(&self, t: &Thread, c: ClassId) -> bool {
        if t.produced.contains(&c) {
            return false;
        }
        match self.classes.key(c) {
            Key::Entry | Key::Frame(..) => true,
            Key::Anchor(a, c) => {
                // With an anchor grouping choice the class is (block instance, part).
                let (bc, part) = match self.classes.key(c) {
                    Key::With(bc, pc) if matches!(self.classes.key(pc), Key::Part(_)) => {
                        (bc, Some(pc))
                    }
                    _ => (c, None),
                };
                if let Some(pc) = part {
                    let mine = self.opts.anchor_parts.get(t.tid as usize);
                    if mine.and_then(|&p| self.classes.lookup(Key::Part(p))) != Some(pc) {
                        return false;
                    }
                }
                self.could_produce_inst(t, a as usize, bc)
            }
            Key::Heart(hi, p, n) => {
                if t.heart_count.get(&(hi, p)).copied().unwrap_or(0) >= n {
                    return false;
                }
                // A heart's instance takes its parent token's value: a thread that holds that
                // value must reach the heart before redefining it, and one that has redefined it
                // can never produce the instance ("Convergent Operation Semantics", the
                // `llvm.experimental.convergence.loop` rule and the dynamic instances of token
                // values). Ignoring this held back a group at a `@conv` controlled by a loop
                // heart until the scheduler had to guess (oracle seed 49600).
                let parent = if p == NONE {
                    Key::Entry
                } else {
                    self.classes.key(p)
                };
                let parent_def = match parent {
                    Key::Heart(d, _, _) | Key::Anchor(d, _) if t.produced.contains(&p) => Some(d),
                    _ => None,
                };
                match parent_def {
                    Some(d) => {
                        t.fr.token_last.get(&d) == Some(&p)
                            && self.reaches_inst(t, hi as usize, Some(d as usize))
                    }
                    None => {
                        (t.produced.contains(&p) || p == NONE || self.could_produce_token(t, p))
                            && self.reaches_inst(t, hi as usize, None)
                    }
                }
            }
            _ => false,
        }
    }
}
