//! Settledness: which blocks can no longer change when they become a join, so that a divergent
//! branch whose labels can only reach settled blocks needs no join propagation (or a shorter
//! one). After a top-level cycle assumed divergent, a branch inside it can only matter through
//! blocks after the cycle (`downstream_settled`), and only through those that can be joins at
//! all: the join candidates (`join_candidates_settled`), found by a token walk over the code
//! after the cycle with every top-level cycle there condensed to its header
//! (`token_join_candidates`). At the end of the modified post-order, the settled blocks bound
//! every propagation (`advance_settled`), and per branch (`settled_for_branch`) so do the blocks
//! that branch cannot change: in precise mode blocks whose phis keep one value on its diverged
//! paths, and, once a function's propagations work hard, blocks it cannot join (`unjoinable`:
//! at most one source of labels within its reach, a bounded search deciding reachability).
//! Every rule here only skips work whose result is known (Convergence And Uniformity,
//! "Divergence Analysis": a join's effect is its phis, or an assumed-divergent cycle), so the
//! answers never change; the tests in `join_work_tests` compare each with it switched off.

use super::*;

/// Blocks with more predecessors than this get `Scratch::phi_memo` (below it the phis' incomings
/// are read directly: a memo would cost more than it saves).
const PHI_MEMO_PREDS: usize = 16;

/// `Scratch::seeded`: the exit-seeded walks of a top-level cycle were tried and gave up.
pub(super) const SEEDED_FAILED: u8 = 1;
/// `Scratch::seeded`: the cycle's join candidates are those of its exit-seeded walks.
pub(super) const SEEDED_USED: u8 = 2;

impl<F: SsaFunction> State<'_, F> {
    /// Would no block after top-level cycle `a` change if it became a join of a branch inside `a`?
    /// Such a join either taints its phis (settled once tainted, or when it has none that count)
    /// or, inside another irreducible top-level cycle, makes that cycle assumed divergent (settled
    /// once it is). Settledness only grows, so a block found not settled is remembered and asked
    /// again first (a chain of cycles would otherwise make every cycle list every block after
    /// it), and a search stops at the first block not settled.
    pub(super) fn downstream_settled(&mut self, a: u32) -> bool {
        const ALL_SETTLED: u32 = NONE - 1;
        let (f, s) = (self.f, self.s);
        let witness = self.w.witness[a as usize];
        match witness {
            ALL_SETTLED => return true,
            NONE => {
                // First search: whether the blocks after `a` are acyclic, from the blocks that
                // lie in or reach a cycle (one backward pass per function).
                if !self.w.reaches_cycle_ready {
                    self.w.reaches_cycle_ready = true;
                    let n = f.cfg().num_blocks();
                    let mut rc = std::mem::take(&mut self.w.reaches_cycle);
                    rc.clear();
                    rc.resize(n, false);
                    let mut stack: Vec<Block> = Vec::new();
                    for b in 0..n as u32 {
                        if s.cycle_of(Block(b)).is_some() {
                            rc[b as usize] = true;
                            stack.push(Block(b));
                        }
                    }
                    while let Some(x) = stack.pop() {
                        for &p in f.cfg().preds(x) {
                            if !std::mem::replace(&mut rc[p.index()], true) {
                                stack.push(p);
                            }
                        }
                    }
                    self.w.reaches_cycle = rc;
                }
                self.w.downstream_acyclic[a as usize] =
                    s.exits(a).iter().all(|x| !self.w.reaches_cycle[x.index()]);
            }
            w if !self.settled(Block(w)) => return false,
            _ => {}
        }
        // Blocks reachable from the exits of `a` (none of them is in `a`: it is top-level), depth
        // first. A block all of whose successors are known to reach only settled blocks is
        // marked so when its search finishes (settledness only grows), and no later search
        // enters it: in a chain of cycles each cycle's search would otherwise walk the blocks
        // after it again, up to the first block not settled (issue 13, the `irrladder` family).
        // Blocks on a cycle finish before the back edge's target does, so they are marked only
        // by a search that found every block settled.
        self.w.search += 1;
        let stamp = self.w.search;
        let mut seen = std::mem::take(&mut self.w.seen);
        let mut stack = std::mem::take(&mut self.w.down_frames);
        let mut visited = std::mem::take(&mut self.w.walk_visited);
        seen.resize(f.cfg().num_blocks(), NONE);
        stack.clear();
        visited.clear();
        let mut found = ALL_SETTLED;
        'search: for &e in s.exits(a) {
            if seen[e.index()] == stamp || self.w.down_settled[e.index()] {
                continue;
            }
            seen[e.index()] = stamp;
            visited.push(e.0);
            if !self.settled(e) {
                found = e.0;
                break;
            }
            stack.push((e.0, 0));
            while let Some(&mut (x, ref mut next)) = stack.last_mut() {
                let succs = f.cfg().succs(Block(x));
                if let Some(&y) = succs.get(*next as usize) {
                    *next += 1;
                    if seen[y.index()] == stamp || self.w.down_settled[y.index()] {
                        continue;
                    }
                    seen[y.index()] = stamp;
                    visited.push(y.0);
                    if !self.settled(y) {
                        found = y.0;
                        break 'search;
                    }
                    stack.push((y.0, 0));
                } else {
                    stack.pop();
                    if succs.iter().all(|y| self.w.down_settled[y.index()]) {
                        self.w.down_settled[x as usize] = true;
                    }
                }
            }
        }
        if found == ALL_SETTLED {
            for &x in &visited {
                self.w.down_settled[x as usize] = true;
            }
        }
        #[cfg(test)]
        knobs::DOWN_VISITED.with(|c| c.set(c.get() + visited.len() as u64));
        self.w.seen = seen;
        self.w.down_frames = stack;
        self.w.walk_visited = visited;
        self.w.witness[a as usize] = found;
        found == ALL_SETTLED
    }

    /// Would no block after top-level cycle `a` change if it became a join of a branch inside
    /// `a`, looking only at the blocks that can be such a join? Labels leave `a` only through its
    /// exits, and every block of `a` is processed before any exit (exits come first in the
    /// modified post-order), so an exit's label is final when it is processed. A block reached
    /// (in the label flow: successors, a reducible header's cycle exits in LLVM 22) from one exit
    /// only therefore only ever sees that exit's one label: joins after `a` are exits, or blocks
    /// reached from two exits. Those are found once per cycle (each block's state, one exit or
    /// several, changes at most twice); they leave the list when settled.
    /// With `nested`, `a` is instead the outermost irreducible cycle around the branch, assumed
    /// divergent, inside reducible cycles: labels leave it through its exits too (the headers of
    /// the reducible cycles around it pass labels to their own exits, never back into `a`'s
    /// region), and its candidates are judged by `settled_nested`.
    pub(super) fn join_candidates_settled(&mut self, a: u32, nested: bool) -> bool {
        const MULTI: u32 = NONE - 1;
        let (f, s) = (self.f, self.s);
        // The token walk, for a top-level cycle (`nested` cycles' labels also leave through
        // the headers of the reducible cycles around them); the two-state walk when it fails.
        #[cfg(test)]
        let tokens = !nested && !knobs::TWO_STATE_CANDIDATES.with(|c| c.get());
        #[cfg(not(test))]
        let tokens = !nested;
        let through_cycles = shortcut_on!(NO_CYCLE_TOKENS);
        if self.w.candidates[a as usize].is_none()
            && tokens
            && (through_cycles || self.w.downstream_acyclic[a as usize])
        {
            self.w.candidates[a as usize] = self.token_join_candidates(a);
        }
        if self.w.candidates[a as usize].is_none() {
            let exits = s.exits(a);
            let mut state = std::mem::take(&mut self.w.reach_state);
            let mut visited = std::mem::take(&mut self.w.walk_visited);
            let mut stack = std::mem::take(&mut self.w.walk_stack);
            visited.clear();
            stack.clear();
            for (k, &e) in exits.iter().enumerate() {
                state[e.index()] = k as u32;
                visited.push(e.0);
                stack.push(e.0);
            }
            let budget = candidate_budget(s, a);
            let mut over = false;
            while let Some(x) = stack.pop() {
                if visited.len() > budget {
                    over = true;
                    break;
                }
                let st = state[x as usize];
                let x = Block(x);
                let c = s.inner(x);
                // LLVM 19 walks through the bodies of reducible cycles not around the branch.
                let succs = if !self.llvm19 && c != NONE && s.header(c) == x && s.is_reducible(c) {
                    s.exits(c)
                } else {
                    f.cfg().succs(x)
                };
                for &y in succs {
                    let old = state[y.index()];
                    let new = if old == NONE || old == st { st } else { MULTI };
                    if new != old {
                        if old == NONE {
                            visited.push(y.0);
                        }
                        state[y.index()] = new;
                        stack.push(y.0);
                    }
                }
            }
            // A nested cycle with an exit x outside its parent could make a cycle around the
            // parent exit-divergent through the exit check: the one LLVM picks by depth, the
            // ancestor of `a` just inside the smallest cycle holding both (Convergence And
            // Uniformity, "Divergent Cycle Exits"). Settled once each such cycle has a divergent
            // exit, which it keeps: those cycles lead the list, tagged (`NEEDS_EXIT`). Past the
            // budget the walk is incomplete: never settled (the `NONE` sentinel).
            let mut list: Vec<u32> = Vec::with_capacity(visited.len() + 1);
            if over {
                list.push(NONE);
            } else if nested {
                let p = s.parent_raw(a);
                #[cfg(test)]
                if knobs::NO_NEEDS_EXIT.with(|c| c.get())
                    && exits.iter().any(|&x| !s.contains(p, x))
                {
                    list.push(NONE);
                }
                let start = list.len();
                for &x in exits.iter().filter(|&&x| !s.contains(p, x)) {
                    let m = s.cycle_of(x).map_or(NONE, |c| s.common_cycle(c, a));
                    let d = if m == NONE { 1 } else { s.depth(m) + 1 };
                    let needs = NEEDS_EXIT | s.ancestor_at_depth(a, d);
                    if !list[start..].contains(&needs) {
                        list.push(needs);
                    }
                }
            }
            list.extend_from_slice(&visited[..exits.len()]);
            list.extend(
                visited[exits.len()..]
                    .iter()
                    .copied()
                    .filter(|&y| state[y as usize] == MULTI),
            );
            for &y in &visited {
                state[y as usize] = NONE;
            }
            self.w.reach_state = state;
            self.w.walk_visited = visited;
            self.w.walk_stack = stack;
            self.w.candidates[a as usize] = Some(list);
        }
        self.pop_settled_candidates(a, nested)
    }

    /// Would no block after top-level cycle `a`, assumed divergent, change if it became a join of
    /// a branch inside `a`, judged by the joins of the exit-seeded walks
    /// (`crate::sync::exit_seeded`, run once the cycle's branches walked enough)? The token walk of
    /// `join_candidates_settled` bounds those joins from the CFG's shape; these walks bound them
    /// by LLVM's label flow itself: an irreducible cycle after `a` whose exits the tokens must
    /// keep apart may in fact always pass one label on. LLVM 22's flow only; `false` when the
    /// walks were not run or gave up.
    pub(super) fn seeded_candidates_settled(&mut self, a: u32) -> bool {
        let s = self.s;
        let st = self.w.seeded[a as usize];
        if st == 0 {
            if self.llvm19
                || s.exits(a).len() > crate::sync::MAX_SEEDED_EXITS
                || !shortcut_on!(NO_SEEDED_CANDIDATES)
            {
                self.w.seeded[a as usize] = SEEDED_FAILED;
                self.w.seeded_budget[a as usize] = u64::MAX;
                return false;
            }
            // The first try waits until the branches of `a` have walked a few passes over `a`,
            // and may take as many steps: cycles whose branches walk little never pay for it.
            self.w.seeded[a as usize] = SEEDED_FAILED;
            self.w.seeded_budget[a as usize] = 8 * s.blocks(a).len() as u64 + 1024;
            #[cfg(test)]
            if knobs::EAGER_SEEDED.with(|c| c.get()) {
                self.try_seeded(a, u64::MAX);
            }
        }
        if self.w.seeded[a as usize] == SEEDED_FAILED
            && self.w.seeded_spent[a as usize] >= self.w.seeded_budget[a as usize]
        {
            // Tried (after a failure again, with twice the budget) once the branches of `a` have
            // walked as much as the budget since the last try: the tries cost at most what the
            // branches did,
            // and a big cycle after `a` that every walk crosses is crossed by the branches
            // anyway.
            self.try_seeded(a, self.w.seeded_budget[a as usize]);
        }
        if self.w.seeded[a as usize] != SEEDED_USED {
            return false;
        }
        let mut list = std::mem::take(&mut self.w.seeded_candidates[a as usize]);
        while let Some(&j) = list.last() {
            if !(self.settled(Block(j)) || self.precise && self.w.joined_from[j as usize] == a) {
                break;
            }
            list.pop();
        }
        let done = list.is_empty();
        self.w.seeded_candidates[a as usize] = list;
        done
    }

    /// Runs the exit-seeded walks of `a` within `budget` steps: on success its candidates are
    /// theirs (`SEEDED_USED`), else the next try gets twice the budget.
    fn try_seeded(&mut self, a: u32, budget: u64) {
        let s = self.s;
        self.ensure_po();
        let po = &self.w.po;
        let mut seeds = std::mem::take(&mut self.w.scratch);
        seeds.clear();
        seeds.extend(s.exits(a).iter().map(|x| po.index[x.index()]));
        let mut joins = std::mem::take(&mut self.w.walk_ready);
        joins.clear();
        let done = self
            .w
            .joins
            .exit_seeded_joins(po, &seeds, budget, &mut joins)
            .is_some();
        if done {
            #[cfg(test)]
            knobs::SEEDED_USED.with(|c| c.set(c.get() + 1));
            let mut list: Vec<u32> = Vec::with_capacity(seeds.len() + joins.len());
            list.extend(s.exits(a).iter().map(|x| x.0));
            list.extend(joins.iter().map(|&j| po.order[j as usize].0));
            self.w.seeded_candidates[a as usize] = list;
            self.w.seeded[a as usize] = SEEDED_USED;
        } else {
            #[cfg(test)]
            knobs::SEEDED_FAILED.with(|c| c.set(c.get() + 1));
            self.w.seeded[a as usize] = SEEDED_FAILED;
            self.w.seeded_budget[a as usize] = budget.saturating_mul(2);
            self.w.seeded_spent[a as usize] = 0;
        }
        self.w.scratch = seeds;
        self.w.walk_ready = joins;
    }

    /// Drops the settled blocks from the end of `a`'s candidate list; true when none is left.
    fn pop_settled_candidates(&mut self, a: u32, nested: bool) -> bool {
        let mut list = self.w.candidates[a as usize].take().unwrap();
        while let Some(&j) = list.last() {
            let settled = j != NONE
                && if j & NEEDS_EXIT != 0 {
                    self.w.exit_flag[(j & !NEEDS_EXIT) as usize]
                } else if nested {
                    self.settled_nested(Block(j), a)
                } else {
                    self.settled(Block(j)) || self.precise && self.w.joined_from[j as usize] == a
                };
            if !settled {
                break;
            }
            list.pop();
        }
        let done = list.is_empty();
        self.w.candidates[a as usize] = Some(list);
        done
    }

    /// Would `j` becoming a join of a branch inside `o`, an assumed-divergent outermost
    /// irreducible cycle, change nothing? Every cycle a join makes divergent is irreducible and
    /// contains `j` (so lies inside the outermost irreducible cycle around `j`: nothing new once
    /// that one is assumed, and then its phis are all marked); otherwise only its phis remain.
    /// A join may also be recorded as a divergent exit (at an exit of a reducible cycle around
    /// the branch): the cycle around `o` it would pick by depth must have one already.
    fn settled_nested(&self, j: Block, o: u32) -> bool {
        let (f, s) = (self.f, self.s);
        let d = s.cycle_of(j).map_or(0, |c| s.depth(c)) + 1;
        if d < s.depth(o) && !self.w.exit_flag[s.ancestor_at_depth(o, d) as usize] {
            return false;
        }
        if let Some(c) = s.cycle_of(j) {
            let o = self.w.po.outer_irr[c as usize];
            if o != NONE {
                return self.inside_assumed(o);
            }
        }
        let joined = shortcut_on!(NO_NESTED_JOINED);
        self.w.phis_tainted[j.index()]
            || joined && self.precise && self.w.joined_from[j.index()] == o
            || f.block_insts(j).take_while(|&i| f.is_phi(i)).all(|i| {
                self.out.divergent_insts[i.index()]
                    || self.out.always_uniform[i.index()]
                    || f.phi_has_constant_or_undef_value(i)
            })
    }

    /// The join candidates after top-level cycle `a` (see `join_candidates_settled`, which this
    /// sharpens); `None` (then the two-state walk decides) only in tests that switch off the
    /// condensing of irreducible cycles (`NO_IRREDUCIBLE_TOKENS`) when one lies after `a`.
    ///
    /// In the label flow, a reducible top-level cycle `c` after `a` is entered only at its
    /// header, and every label inside it descends from the header's: LLVM 22's header sends its
    /// label to its cycle's exits (Convergence And Uniformity, "Modified Post-Order"), LLVM 19
    /// walks the body, where no block can be reached with two different labels (the back edges
    /// bring the header's own label back). So `c` stands as its header, whose successors are
    /// `c`'s exits; the graph of those condensed cycles and the blocks in no cycle is acyclic.
    /// There every block is processed once, after all its predecessors (they come later in the
    /// modified post-order, a cycle's exits before its header, and no label goes back into `a`
    /// or into a cycle after the cycle was left), and pushes its final label: a block all of
    /// whose predecessors carry one and the same label never becomes a join. Labels are tracked
    /// as tokens in topological order: an exit of `a`, or a block reached with two tokens (a
    /// possible join, whose label may be itself), starts a token of its own; any other block
    /// carries its predecessors' token. The candidates are the exits and the blocks reached with
    /// two tokens; a block with one predecessor never is one (the two-state walk took any block
    /// reached from two exits, and with a loop after `a`, thousands of blocks whose labels are
    /// always one exit's: issue 13, `irreducible` seed 2 at 64,000 blocks).
    ///
    /// An irreducible top-level cycle after `a` stands as its header too, entered at any of its
    /// entries. Its blocks form an interval of the order below every block that enters it and
    /// above its exits, so its exits are processed once the cycle is done. When every label
    /// entering it carries one token, every label inside is that token's: no join, and its
    /// exits carry the token. When they carry several, a block inside may be a join (settled
    /// once the cycle is assumed divergent: `settled` of its header) and the exits may see
    /// several labels: each exit is a candidate and starts a token of its own. (Giving up
    /// there kept a block that is never a join among the candidates of the `irreducible`
    /// family at 64,000 blocks, seed 5: issue 13.)
    fn token_join_candidates(&mut self, a: u32) -> Option<Vec<u32>> {
        let (f, s) = (self.f, self.s);
        let exits = s.exits(a);
        let irr_nodes = shortcut_on!(NO_IRREDUCIBLE_TOKENS);
        // Where a block sends labels in the condensed graph, or `None` for a block in a cycle
        // other than at the header of a top-level one; `node`: the block that stands for a
        // block of an irreducible top-level cycle (its header).
        let label_succs = |x: Block| -> Option<&[Block]> {
            match s.cycle_of(x) {
                None => Some(f.cfg().succs(x)),
                Some(c) => {
                    let t = s.top(c);
                    (s.header(t) == x && (s.is_reducible(t) || irr_nodes)).then(|| s.exits(t))
                }
            }
        };
        let node = |y: Block| -> Block {
            match s.cycle_of(y) {
                Some(c) if irr_nodes && !s.is_reducible(s.top(c)) => s.header(s.top(c)),
                _ => y,
            }
        };
        let irr_node =
            |x: Block| irr_nodes && s.cycle_of(x).is_some_and(|c| !s.is_reducible(s.top(c)));
        let mut indeg = std::mem::take(&mut self.w.indeg);
        indeg.resize(f.cfg().num_blocks(), 0);
        let mut first = std::mem::take(&mut self.w.reach_state);
        let mut multi = std::mem::take(&mut self.w.multi);
        multi.resize(f.cfg().num_blocks(), false);
        // The blocks reachable from the exits (`multi` marks them visited for the walk), then
        // each one's number of predecessors among them.
        let mut down = std::mem::take(&mut self.w.walk_visited);
        let mut stack = std::mem::take(&mut self.w.walk_stack);
        down.clear();
        stack.clear();
        stack.extend(exits.iter().map(|&e| node(e).0));
        let budget = candidate_budget(s, a);
        let mut result = None;
        while let Some(x) = stack.pop() {
            if !std::mem::replace(&mut multi[x as usize], true) {
                down.push(x);
                match label_succs(Block(x)) {
                    Some(succs) => stack.extend(succs.iter().map(|&y| node(y).0)),
                    None => {
                        result = Some(None);
                        break;
                    }
                }
            }
            if down.len() > budget {
                result = Some(Some(vec![NONE]));
                break;
            }
        }
        if let Some(r) = result {
            for &x in &down {
                multi[x as usize] = false;
            }
            stack.clear();
            self.w.indeg = indeg;
            self.w.reach_state = first;
            self.w.multi = multi;
            self.w.walk_visited = down;
            self.w.walk_stack = stack;
            return r;
        }
        for &x in &down {
            multi[x as usize] = false;
            for &y in label_succs(Block(x)).unwrap_or_default() {
                indeg[node(y).index()] += 1;
            }
        }
        let mut list: Vec<u32> = exits.iter().map(|e| e.0).collect();
        for &e in exits {
            // An exit is a candidate whatever reaches it, and its label may be its own.
            let e = node(e);
            first[e.index()] = e.0;
            multi[e.index()] = true;
        }
        let mut ready = std::mem::take(&mut self.w.walk_ready);
        ready.clear();
        ready.extend(down.iter().copied().filter(|&x| indeg[x as usize] == 0));
        while let Some(x) = ready.pop() {
            let tx = if multi[x as usize] {
                x
            } else {
                first[x as usize]
            };
            let irr_multi = multi[x as usize] && irr_node(Block(x));
            for &y in label_succs(Block(x)).unwrap_or_default() {
                let y = node(y);
                let yi = y.index();
                if irr_multi && !multi[yi] {
                    multi[yi] = true;
                    list.push(y.0);
                } else if first[yi] == NONE {
                    first[yi] = tx;
                } else if first[yi] != tx && !multi[yi] {
                    multi[yi] = true;
                    list.push(y.0);
                }
                indeg[yi] -= 1;
                if indeg[yi] == 0 {
                    ready.push(y.0);
                }
            }
        }
        for &x in &down {
            debug_assert_eq!(
                indeg[x as usize], 0,
                "the condensed label flow after a top-level cycle is acyclic"
            );
            indeg[x as usize] = 0;
            first[x as usize] = NONE;
            multi[x as usize] = false;
        }
        self.w.indeg = indeg;
        self.w.reach_state = first;
        self.w.multi = multi;
        self.w.walk_visited = down;
        self.w.walk_stack = stack;
        self.w.walk_ready = ready;
        Some(list)
    }

    fn settled(&mut self, j: Block) -> bool {
        let s = self.s;
        if let Some(c) = s.cycle_of(j) {
            let t = s.top(c);
            if !s.is_reducible(t) {
                return self.inside_assumed(t);
            }
        }
        if self.w.phis_tainted[j.index()] {
            return true;
        }
        // As in `settled_for_all`, with its own cursor (this test does not count always-uniform
        // phis as settled): the witness of `downstream_settled` is asked again by every branch
        // of its cycle.
        let (f, out) = (self.f, &self.out);
        phis_done(f, out, j, &mut self.w.join_phi_cursor[j.index()], false)
    }

    /// Does at most one successor of `b` lie inside `inner`, its innermost cycle, with no
    /// irreducible cycle around it? In LLVM 22's propagation a label that leaves such a cycle
    /// never comes back into it (labels flow down the modified post-order, a reducible header
    /// sends them to its exits), so the branch's labels inside `inner` all come from that one
    /// successor, and no block of `inner` becomes a join.
    pub(super) fn single_line(&self, b: Block, inner: u32) -> bool {
        #[cfg(test)]
        if knobs::NO_LINE_SKIP.with(|c| c.get()) {
            return false;
        }
        let s = self.s;
        self.w.po.outer_irr[inner as usize] == NONE
            && self
                .f
                .cfg()
                .succs(b)
                .iter()
                .filter(|&&x| s.contains(inner, x))
                .nth(1)
                .is_none()
    }

    /// Would `j` becoming a join of any branch change nothing? Its phis are done, and no cycle it
    /// could make assumed divergent is still outside one: such a cycle contains `j` and is
    /// irreducible (the diverged-entry climb stops below a reducible cycle, whose header
    /// dominates its blocks; precise mode's region is the outermost irreducible cycle), so it
    /// lies inside the outermost irreducible cycle around `j`: there is none without one, and
    /// once that one is assumed divergent all are inside it. (Asking for `j`'s top-level cycle
    /// instead left a nest inside a loop unsettled until the loop was assumed: every divergent
    /// branch of the loop walked the nest, issue 13's `grid` family.)
    fn settled_for_all(&mut self, j: Block) -> bool {
        let s = self.s;
        let nested_all = shortcut_on!(NO_NESTED_ALL);
        if let Some(c) = s.cycle_of(j) {
            let o = self.w.po.outer_irr[c as usize];
            if o != NONE && !self.inside_assumed(if nested_all { o } else { s.top(c) }) {
                return false;
            }
        }
        if self.w.phis_tainted[j.index()] || self.lone_source_all(j) {
            return true;
        }
        let (f, out) = (self.f, &self.out);
        phis_done(f, out, j, &mut self.w.phi_cursor[j.index()], true)
    }

    /// Moves `settled_below` past blocks that became settled (settledness only grows).
    pub(super) fn advance_settled(&mut self) -> u32 {
        let mut k = self.w.settled_below;
        let n = self.w.po.order.len() as u32;
        while k < n && self.settled_for_all(self.w.po.order[k as usize]) {
            k += 1;
        }
        self.w.settled_below = k;
        k
    }

    /// Extends `k` (every block below it is settled for every branch) past the blocks the
    /// divergent branch in `b` cannot change: in LLVM 22's setting those it cannot join
    /// (`unjoinable`); in precise mode those it leaves as they are when it makes them joins. In
    /// precise mode a phi stays uniform at a join of a branch whose diverged paths bring it one
    /// value (`precise::joins::taint`), so blocks whose phis stay uniform for the branches seen so
    /// far are not settled for all, and one such block near the end of the function stopped the
    /// early exit of the join propagation for every later branch (issue 10: on the 8,000-block
    /// irreducible benchmark precise mode took 2.35x llvm mode's propagation steps, 1.73x with
    /// this stop; `join_work_tests::precise_join_work_near_llvm`). For this branch such a
    /// block is as settled as any other when its cycle cannot become divergent
    /// (`settled_for_all`'s condition) and each of its phis that is not divergent yet selects
    /// one value on its incoming edges from blocks the branch may reach: `taint` would mark
    /// nothing there. "May reach" over-approximates `taint`'s reachability (a block in the
    /// branch's strongly connected component or below its interval of the modified post-order,
    /// see `precise::joins::component_lo`), which can only find fewer such blocks. Blocks settled
    /// for all are skipped through `unsettled_next` (settledness only grows), so a branch looks
    /// only at the blocks not yet settled for all.
    pub(super) fn settled_for_branch(&mut self, b: Block, k: u32, unjoinable: bool) -> u32 {
        let (f, s) = (self.f, self.s);
        let n = self.w.po.order.len() as u32;
        if self.w.unsettled_next.len() != n as usize + 1 {
            self.w.unsettled_next.clear();
            self.w.unsettled_next.extend(0..=n);
        }
        // Past the highest index the branch's labels can reach the propagation returns at once
        // (`JoinFinder::compute`): no need to look further.
        let hi = if self.llvm19 {
            // LLVM 19's flow also climbs into reducible cycles without the branch: the bound
            // `JoinFinder::compute` returns at once past. (Asking `n` made every branch of a
            // loop nest with multi-level exits scan the settled end of the order up to the
            // entry: quadratic, issue 13's `exitnest` family.)
            let po = &self.w.po;
            match po.succs(po.index[b.index()]).iter().copied().max() {
                Some(m) if shortcut_on!(NO_REACH_19_BOUND) => po.reach_hi_19(s, b, m),
                _ => n,
            }
        } else {
            self.w.po.branch_reach_hi(b)
        };
        let lb = crate::precise::joins::component_lo(s, &self.w.po, b);
        let mut k = k;
        // Blocks below the lowest index the branch's labels reach are no joins of it: start
        // there. Blocks at the bottom of the order that are never settled for all (the phis of
        // a loop without exits that keep one value, reachable only from far above) otherwise
        // cost every later branch a look each: quadratic (issue 13's `chain-noreturn` in
        // precise mode, 4.5x per doubling from 16,000 to 64,000 blocks). Not in LLVM 19's
        // setting, whose flow also climbs into reducible cycles (`lo_reach` is LLVM 22's).
        if !self.llvm19 && shortcut_on!(NO_REACH_LO_START) {
            let lo = self.w.po.branch_reach_lo(b);
            if lo != NONE && lo > k {
                k = lo;
            }
        }
        loop {
            if k > hi {
                return k;
            }
            k = self.next_unsettled(k);
            if k >= n || k > hi {
                return k;
            }
            #[cfg(test)]
            knobs::SETTLE_SCANS.with(|c| c.set(c.get() + 1));
            let j = self.w.po.order[k as usize];
            if let Some(c) = s.cycle_of(j)
                && self.w.po.outer_irr[c as usize] != NONE
                && !self.inside_assumed(s.top(c))
            {
                return k;
            }
            if !self.precise {
                // LLVM 22's setting: a join anywhere taints the phis, so only a block the branch
                // cannot join is settled for it.
                if !self.unjoinable(b, j) && !self.lone_source(b, j) {
                    return k;
                }
                k += 1;
                continue;
            }
            let po = &self.w.po;
            // Depends on the branch only through `lb` (`b`'s own component starts at `lb`).
            let may_reach = |p: Block| {
                #[cfg(test)]
                knobs::PHI_READS.with(|c| c.set(c.get() + 1));
                let lp = crate::precise::joins::component_lo(s, po, p);
                lp == lb || (lp < lb && po.index[p.index()] < lb)
            };
            // A block with many predecessors (a loop header with a latch per block, issue 13's
            // `latchy` family) is asked by every branch of its component: its phis' incomings
            // are read once per component, not once per branch.
            let one_valued =
                f.cfg().preds(j).len() > PHI_MEMO_PREDS && shortcut_on!(NO_PHI_MEMO) && {
                    if self.w.phi_memo.is_empty() {
                        self.w.phi_memo.resize(f.cfg().num_blocks(), (NONE, false));
                    }
                    match self.w.phi_memo[j.index()] {
                        (m, v) if m == lb => v,
                        _ => {
                            let v = f.block_insts(j).take_while(|&i| f.is_phi(i)).all(|i| {
                                f.phi_has_constant_or_undef_value(i)
                                    || f.phi_same_incoming_from(i, &may_reach)
                            });
                            self.w.phi_memo[j.index()] = (lb, v);
                            v
                        }
                    }
                };
            let untouched = one_valued
                || f.block_insts(j).take_while(|&i| f.is_phi(i)).all(|i| {
                    self.out.divergent_insts[i.index()]
                        || self.out.always_uniform[i.index()]
                        || f.phi_has_constant_or_undef_value(i)
                        || f.phi_same_incoming_from(i, &may_reach)
                });
            // Sharper tests where the function's propagations work hard (`unjoinable`).
            let untouched = untouched
                || unjoinable
                    && (self.unjoinable(b, j)
                        || self.untouched_searched(b, lb, j)
                        || self.lone_source(b, j));
            if !untouched {
                return k;
            }
            k += 1;
        }
    }

    /// Precise mode: are the phis of `j` left as they are by the branch in `b`, with the
    /// predecessors the branch may reach found by `may_reach` (a search where the components'
    /// order alone does not decide)?
    fn untouched_searched(&mut self, b: Block, lb: u32, j: Block) -> bool {
        let f = self.f;
        let mut reached = std::mem::take(&mut self.w.reached_preds);
        reached.clear();
        for &p in f.cfg().preds(j) {
            if self.may_reach(b, lb, p) {
                reached.push(p);
            }
        }
        let untouched = f.block_insts(j).take_while(|&i| f.is_phi(i)).all(|i| {
            self.out.divergent_insts[i.index()]
                || self.out.always_uniform[i.index()]
                || f.phi_has_constant_or_undef_value(i)
                || f.phi_same_incoming_from(i, &|p| reached.contains(&p))
        });
        self.w.reached_preds = reached;
        untouched
    }

    /// Can the branch in `b` never make `j` a join? True when `j` lies in no cycle and at most
    /// one source of labels for `j` can be reached from `b`. A source is a predecessor in no
    /// cycle (processed once, with its final label, as all of its own predecessors come before it
    /// in the propagation), or, in LLVM 22's propagation, a reducible top-level cycle without
    /// the branch: it is entered at its header only, and the header sends its one label to all
    /// of the cycle's exits, so it stands for all of `j`'s predecessors in the cycle. A cycle the
    /// branch cannot reach sends nothing; any other cycle (irreducible, holding the branch, or
    /// walked through by LLVM 19's propagation) may send `j` several labels. Reachability
    /// (`reaches_interval`) is decided by the modified post-order plus a bounded search. At the
    /// end of the `irreducible` family's order, such blocks (one predecessor before the branch,
    /// one after the big cycle) kept a few dozen branches walking the whole cycle (issue 13,
    /// seeds 4 and 5 at 32,000 blocks).
    fn unjoinable(&mut self, b: Block, j: Block) -> bool {
        let (f, s) = (self.f, self.s);
        if s.cycle_of(j).is_some() {
            return false;
        }
        let b_top = s.cycle_of(b).map(|c| s.top(c));
        let mut source = None;
        for &p in f.cfg().preds(j) {
            if p == b {
                if source.is_some_and(|q| q != b) {
                    return false;
                }
                source = Some(b);
                continue;
            }
            // The source standing for `p`, its index interval, and whether it sends one label.
            let (q, lo, hi, one_label) = match s.cycle_of(p) {
                None => {
                    let ip = self.w.po.index[p.index()];
                    (p, ip, ip, true)
                }
                Some(c) => {
                    let t = s.top(c);
                    if b_top == Some(t) {
                        return false;
                    }
                    let h = s.header(t);
                    let lo = self.w.po.index[h.index()];
                    let hi = lo + s.blocks(t).len() as u32 - 1;
                    let reducible = self.w.po.outer_irr[t as usize] == NONE;
                    (h, lo, hi, !self.llvm19 && reducible)
                }
            };
            if lo == NONE || source == Some(q) || !self.reaches_interval(b, lo, hi) {
                continue;
            }
            if !one_label || source.is_some() {
                return false;
            }
            source = Some(q);
        }
        true
    }

    /// Does the branch in `b` reach a block of the index interval `lo..=hi` (one block in no
    /// cycle, or a top-level cycle, with `b` outside it)? A block outside such an interval that
    /// reaches it comes after it in the modified post-order (a cycle's blocks form an interval
    /// above its exits), so the search goes through blocks above `hi` only, at most
    /// `REACH_SEARCH` of them (past it: true).
    fn reaches_interval(&mut self, b: Block, lo: u32, hi: u32) -> bool {
        const REACH_SEARCH: usize = 64;
        let (f, po) = (self.f, &self.w.po);
        if po.index[b.index()] <= hi {
            return false;
        }
        let n = f.cfg().num_blocks();
        if self.w.reach_seen.len() < n {
            self.w.reach_seen.resize(n, 0);
        }
        self.w.reach_stamp = self.w.reach_stamp.wrapping_add(1);
        if self.w.reach_stamp == 0 {
            self.w.reach_seen.fill(0);
            self.w.reach_stamp = 1;
        }
        let stamp = self.w.reach_stamp;
        let mut stack = std::mem::take(&mut self.w.reach_stack);
        stack.clear();
        stack.push(b);
        self.w.reach_seen[b.index()] = stamp;
        let mut seen = 1;
        let mut found = false;
        'search: while let Some(x) = stack.pop() {
            for &y in f.cfg().succs(x) {
                let iy = po.index[y.index()];
                if (lo..=hi).contains(&iy) {
                    found = true;
                    break 'search;
                }
                if iy == NONE || iy < lo || self.w.reach_seen[y.index()] == stamp {
                    continue;
                }
                self.w.reach_seen[y.index()] = stamp;
                seen += 1;
                if seen > REACH_SEARCH {
                    found = true;
                    break 'search;
                }
                stack.push(y);
            }
        }
        self.w.reach_stack = stack;
        found
    }

    /// May the branch in `b` reach `p` (precise mode's test of a phi's incoming blocks)? The
    /// strongly connected components' order answers most (`component_lo`: a block in the branch's
    /// component, or in one below it); a block in no cycle below the branch's component is then
    /// searched for (`reaches_interval`). Over-approximates the reachability of
    /// `precise::joins::taint` (blocks labelled by the propagation, or reachable from `b`).
    pub(super) fn may_reach(&mut self, b: Block, lb: u32, p: Block) -> bool {
        let (s, po) = (self.s, &self.w.po);
        if p == b {
            return true;
        }
        let lp = crate::precise::joins::component_lo(s, po, p);
        if lp == lb {
            return true;
        }
        let ip = po.index[p.index()];
        if lp > lb || ip >= lb {
            return false;
        }
        s.cycle_of(p).is_some() || self.reaches_interval(b, ip, ip)
    }

    /// The first index at or after `k` of a block not settled for all (`settled_for_all`), or
    /// the number of blocks in the order; settled blocks are linked past (union-find style, with
    /// path halving: settledness only grows).
    fn next_unsettled(&mut self, k: u32) -> u32 {
        let n = self.w.po.order.len() as u32;
        let mut k = k;
        while k < n {
            let next = self.w.unsettled_next[k as usize];
            if next != k {
                let after = self.w.unsettled_next[next as usize];
                self.w.unsettled_next[k as usize] = after;
                k = after;
                continue;
            }
            if !self.settled_for_all(self.w.po.order[k as usize]) {
                return k;
            }
            self.w.unsettled_next[k as usize] = k + 1;
            k += 1;
        }
        n
    }
}
