//! Walks remembered from the moment they leave a cycle around the branch (issue 13: random loop
//! nests, `converge_gen::program::shapes::randnest_cfg`, where every branch inside a big
//! irreducible cycle floods the whole cycle and then walks the same blocks below it as the branch
//! before it did).
//!
//! LLVM 22's propagation (Convergence And Uniformity, "Divergence Analysis": the join points of
//! a divergent branch) processes the largest fresh index first. For a branch inside cycle `D`
//! (one of the cycles around it), take the first moment every fresh index lies below `D`'s
//! interval, every block processed so far lying inside it: the *cut* of `D`. Labels then flow
//! out of `D` only through its exits, and a label can only come back into `D` through its
//! entries. So, if no block of `D` changes its label after the cut (checked while the walk goes
//! on), everything the walk does after the cut is decided by the labels at `D`'s exits and
//! entries, compared with each other (which are equal, which are a block's own label, which are
//! unset), and by the walk's settings: that is the key. A later branch inside `D` that reaches
//! its cut with the same key would repeat the same steps up to the renaming of the labels that
//! came from inside `D`: instead the joins and exits the first walk found after its cut are
//! recorded again (in order, deduplicated as the walk would), and the labels the exit check and
//! the exit configurations read outside `D` are set as the first walk left them. A walk that
//! reaches a remembered cut after recording cuts of its own stores for those only its part up
//! to that cut and a link to it (the labels from inside renamed along the link), so that the
//! part after the cut, often the same long walk below a big cycle, is kept once. The decisions
//! of the shortcuts inside the walk (`reads`, jumps) change only its number of steps, not what it
//! records; the steps the first walk took after its cut are counted again, so the work measures
//! move about as without the memo. LLVM 22's flow, in llvm mode and in precise mode; precise
//! mode judges every join's phis by the branch, so its walks log every join, and a replay
//! leaves unlabelled the blocks it does not restore, which `JoinFinder::labelled` may answer
//! false for (false decides nothing there). Not LLVM 19's walk, whose floor moves with the
//! labels inside the cycle.

use crate::structure::{NONE, Structure};
use crate::sync::ModifiedPo;
use std::collections::HashMap;

/// Exits plus entries beyond which a cycle gets no key (the key would cost more than the walks
/// it saves are likely to).
const MAX_KEY_BLOCKS: usize = 48;
/// Label codes in a key: a label that is some key block's own index is that block's position;
/// other labels are ranked from here in order of first appearance; an unset label is `UNSET`.
const OTHER: u32 = 1 << 20;
const UNSET: u32 = u32::MAX;
/// Logged event: an exit rather than a join.
pub(crate) const EXIT_EVENT: u32 = 1 << 31;
/// Blocks a cycle around the branch needs for the walk to be remembered at all: walks that
/// cross only small cycles, or big ones with too many exits and entries for a key, pay for the
/// cuts and keep nothing worth it (on the `irreducible` family, whose big cycle has hundreds of
/// entries, the memo's tests cost 1% and found no cut).
const MIN_BLOCKS: usize = 256;
/// The deepest branch (in cycles around it) whose walk is remembered: the bookkeeping costs
/// the number of cycles around the branch per walk and per pop outside the cycle the walk is
/// in, and the snapshots read the exits of each, so in a deep nest (irreducible cycles nested
/// 9,000 deep at 64,000 blocks, `dag-local` seed 1) every walk paid for its depth: 136 s in
/// LLVM 22's setting, against 9.8 s without the memo (issue 13).
pub(crate) const MAX_LEVELS: u32 = 256;
/// Words the remembered walks may keep per block of the function.
const WORDS_PER_BLOCK: usize = 128;

/// A remembered part of a walk: the joins and exits it recorded (`EXIT_EVENT` marks exits),
/// the labels it left at the blocks the exit check and the exit configurations read (indices
/// and labels), and how it ended.
struct Snapshot {
    log: Vec<u32>,
    labels: Vec<(u32, u32)>,
    end: End,
}

enum End {
    /// The walk ended after `steps` steps; if it paused below the top-level cycle, `fresh`
    /// holds the blocks fresh then.
    Walked {
        paused: bool,
        fresh: Vec<u32>,
        steps: u64,
    },
    /// After `steps` steps the walk reached the cut of remembered `entry`, with `others` the
    /// labels from inside that cut's cycle (in the order its key ranks them).
    Link {
        entry: u32,
        others: Box<[u32]>,
        steps: u64,
    },
}

/// One remembered cut: its walk, the labels that came from inside the cycle at the cut (in
/// the order the key ranks them), where the cut was in the walk's log and steps, and the
/// cycle's interval.
struct Entry {
    snap: u32,
    others: Box<[u32]>,
    log_at: u32,
    steps_at: u64,
    lo: u32,
    hi: u32,
}

/// A cycle around the branch at hand: its index interval and whether the walk was cut there.
#[derive(Clone, Copy)]
struct Level {
    c: u32,
    lo: u32,
    hi: u32,
    state: u8,
}

/// `Level::state`: the walk is inside (or not yet past) the cycle.
const INSIDE: u8 = 0;
/// Cut, and no label inside changed since.
const CUT: u8 = 1;
/// No memo for this cycle in this walk.
const SPOILT: u8 = 2;

/// A recorded cut of the walk at hand, waiting for the walk's end.
struct Pending {
    level: usize,
    depth: u32,
    key: Box<[u32]>,
    others: Box<[u32]>,
    log_at: u32,
    steps_at: u64,
}

/// A remembered cut found by [`CutMemo::on_pop`], to replay (see [`CutMemo::replay`]).
pub(crate) struct Replay {
    entry: u32,
    /// The level of the walk at hand whose cut it is, and the walk's steps before the cut.
    level: usize,
    steps_at: u64,
}

/// The memo of one function, and the state of the walk at hand.
#[derive(Default)]
pub(crate) struct CutMemo {
    map: HashMap<Box<[u32]>, u32>,
    entries: Vec<Entry>,
    snaps: Vec<Snapshot>,
    /// Per cycle (`worth_it`): 0 not asked yet, 1 worth a memo, 2 not; and scratch.
    worth: Vec<u8>,
    path: Vec<u32>,
    /// Words kept so far, and the most allowed.
    kept: usize,
    cap: usize,
    /// The walk at hand: the cycles around the branch from the innermost, the first not yet
    /// left, the cuts recorded.
    levels: Vec<Level>,
    next: usize,
    pending: Vec<Pending>,
    /// While some cut is recorded: the walk logs its events (every join and exit it records,
    /// `EXIT_EVENT` marking exits), in a buffer the walk holds (`log`).
    pub(crate) logging: bool,
    pub(crate) log: Vec<u32>,
    /// The walk's settings, the start of every key.
    context: [u32; 10],
    key: Vec<u32>,
    others: Vec<u32>,
    blocks: Vec<u32>,
    /// Scratch of `keep`: block stamps.
    seen: Vec<u32>,
    stamp: u32,
    /// The hot loop's test: a pop outside `watch` (the first cycle not yet left) or inside
    /// `back` (the largest cut cycle) needs [`CutMemo::on_pop`].
    pub(crate) watch: (u32, u32),
    pub(crate) back: (u32, u32),
}

impl CutMemo {
    /// Forgets the walks of the last function; room for one of `n` blocks.
    pub fn reset(&mut self, n: usize) {
        self.map.clear();
        self.entries.clear();
        self.snaps.clear();
        self.kept = 0;
        self.cap = WORDS_PER_BLOCK * n + 4096;
        self.worth.clear();
        if self.seen.len() < n {
            self.seen.resize(n, 0);
        }
    }

    /// Whether some cycle from `c` out has at least `MIN_BLOCKS` blocks and a key (few enough
    /// exits and entries); remembered per cycle.
    pub fn worth_it(&mut self, s: &Structure, c: u32) -> bool {
        if self.worth.len() != s.num_cycles() {
            self.worth.clear();
            self.worth.resize(s.num_cycles(), 0);
        }
        let mut path = std::mem::take(&mut self.path);
        path.clear();
        let mut c = c;
        let mut found = false;
        while c != NONE {
            match self.worth[c as usize] {
                1 => {
                    found = true;
                    break;
                }
                2 => break,
                _ => {}
            }
            path.push(c);
            // (Entries first: a cycle's exits are computed on first need.)
            if s.blocks(c).len() >= MIN_BLOCKS
                && s.entries(c).len() <= MAX_KEY_BLOCKS
                && s.exits(c).len() + s.entries(c).len() <= MAX_KEY_BLOCKS
            {
                found = true;
                break;
            }
            c = s.parent_raw(c);
        }
        for &p in &path {
            self.worth[p as usize] = if found { 1 } else { 2 };
        }
        self.path = path;
        found
    }

    /// The most events one snapshot logs (a test's measure: a walk's log starts empty).
    #[cfg(test)]
    pub fn longest_log(&self) -> usize {
        self.snaps.iter().map(|s| s.log.len()).max().unwrap_or(0)
    }

    /// Starts a walk of the branch whose innermost cycle is `t_cycle`, with the walk's settings
    /// in `context`.
    pub fn begin(&mut self, s: &Structure, po: &ModifiedPo, t_cycle: u32, context: [u32; 10]) {
        self.levels.clear();
        self.pending.clear();
        self.log.clear();
        self.logging = false;
        self.next = 0;
        self.context = context;
        let mut c = t_cycle;
        while c != NONE {
            let lo = po.index[s.header(c).index()];
            self.levels.push(Level {
                c,
                lo,
                hi: lo + s.blocks(c).len() as u32,
                state: INSIDE,
            });
            c = s.parent_raw(c);
        }
        #[cfg(test)]
        crate::analysis::knobs::CUT_LEVELS.with(|k| k.set(k.get() + self.levels.len() as u64));
        self.set_watch();
    }

    /// The depth of the outermost cycle cut and recorded in the walk at hand (0 if none).
    pub fn log_depth(&self) -> u32 {
        self.pending.iter().map(|p| p.depth).min().unwrap_or(0)
    }

    /// The interval of the branch's top-level cycle.
    pub fn top(&self) -> (u32, u32) {
        self.levels.last().map_or((0, 0), |l| (l.lo, l.hi))
    }

    fn set_watch(&mut self) {
        self.watch = match self.levels.get(self.next) {
            Some(l) => (l.lo, l.hi),
            None => (0, u32::MAX),
        };
        // The largest cut cycle not spoilt (the cut cycles are nested inside each other).
        self.back = (0, 0);
        for l in self.levels[..self.next].iter().rev() {
            if l.state == CUT {
                self.back = (l.lo, l.hi);
                break;
            }
        }
    }

    /// A jump of the walk before a cut put a label at `p`: the cycles not holding `p` that the
    /// walk has not left get no memo (that label is not in their keys).
    pub fn jumped_to(&mut self, p: u32) {
        for l in &mut self.levels[self.next..] {
            if l.lo <= p && p < l.hi {
                break;
            }
            l.state = SPOILT;
        }
    }

    /// The walk pops index `i`, outside the cycle it was in or back inside a cut one, after
    /// `steps` steps (this one included), with `log_len` events logged. Spoils the cut cycles
    /// holding `i`, and cuts the cycles the walk leaves downwards: the first whose key is
    /// remembered is returned for replay, the others are recorded. `added(b)`: whether `b` is
    /// among the branch's joins (bit 0) and exits (bit 1) so far.
    #[allow(clippy::too_many_arguments)]
    pub fn on_pop(
        &mut self,
        s: &Structure,
        po: &ModifiedPo,
        labels: &[u32],
        added: &dyn Fn(u32) -> u32,
        i: u32,
        steps: u64,
        log_len: usize,
    ) -> Option<Replay> {
        #[cfg(test)]
        crate::analysis::knobs::CUT_LEVELS.with(|k| k.set(k.get() + self.next as u64 + 1));
        for l in &mut self.levels[..self.next] {
            if l.state == CUT && l.lo <= i && i < l.hi {
                l.state = SPOILT;
            }
        }
        while self.next < self.levels.len() {
            let l = self.levels[self.next];
            if l.lo <= i && i < l.hi {
                break;
            }
            self.next += 1;
            // (A cycle's exits are computed on first need: asked only at a cut.)
            if l.state != INSIDE
                || i >= l.hi
                || s.exits(l.c).len() + s.entries(l.c).len() > MAX_KEY_BLOCKS
            {
                self.levels[self.next - 1].state = SPOILT;
                continue;
            }
            self.make_key(s, po, labels, added, l.c);
            if let Some(&e) = self.map.get(&self.key[..]) {
                return Some(Replay {
                    entry: e,
                    level: self.next - 1,
                    steps_at: steps - 1,
                });
            }
            self.levels[self.next - 1].state = CUT;
            if self.kept < self.cap {
                self.pending.push(Pending {
                    level: self.next - 1,
                    depth: s.depth(l.c),
                    key: self.key.clone().into_boxed_slice(),
                    others: self.others.clone().into_boxed_slice(),
                    log_at: log_len as u32,
                    steps_at: steps - 1,
                });
                self.logging = true;
            }
        }
        self.set_watch();
        None
    }

    /// The key of cycle `c` at its cut (`self.key`), and the labels from inside it in their
    /// order of rank (`self.others`).
    fn make_key(
        &mut self,
        s: &Structure,
        po: &ModifiedPo,
        labels: &[u32],
        added: &dyn Fn(u32) -> u32,
        c: u32,
    ) {
        self.blocks.clear();
        self.blocks
            .extend(s.exits(c).iter().map(|x| po.index[x.index()]));
        self.blocks
            .extend(s.entries(c).iter().map(|x| po.index[x.index()]));
        self.key.clear();
        self.key.push(c);
        self.key.extend_from_slice(&self.context);
        self.others.clear();
        for &b in &self.blocks {
            let l = labels[b as usize];
            let code = if l == NONE {
                UNSET
            } else if let Some(p) = self.blocks.iter().position(|&q| q == l) {
                p as u32
            } else if let Some(r) = self.others.iter().position(|&o| o == l) {
                OTHER + r as u32
            } else {
                self.others.push(l);
                OTHER + self.others.len() as u32 - 1
            };
            self.key.push(code);
            self.key.push(added(b));
        }
    }

    /// Replays `r` (just returned by `on_pop`, so `self.others` holds this walk's labels from
    /// inside the cut cycle), following links: `event` gets the joins and exits the remembered
    /// walks recorded after the cut, in order; the labels they left are set, the labels that
    /// came from inside a cut cycle renamed to this walk's; when the last one paused, `fresh`
    /// gets the blocks that were fresh then. Returns whether it paused and the steps after the
    /// cut.
    pub fn replay(
        &self,
        r: &Replay,
        labels: &mut [u32],
        touched: &mut Vec<u32>,
        mut event: impl FnMut(u32),
        mut fresh: impl FnMut(u32),
    ) -> (bool, u64) {
        let mut e = &self.entries[r.entry as usize];
        let mut target: Vec<u32> = self.others.clone();
        let mut steps = 0u64;
        loop {
            let snap = &self.snaps[e.snap as usize];
            let rename = |v: u32| match e.others.iter().position(|&o| o == v) {
                Some(k) => target[k],
                None => v,
            };
            for &ev in &snap.log[e.log_at as usize..] {
                event(ev);
            }
            for &(b, v) in &snap.labels {
                if e.lo <= b && b < e.hi {
                    continue;
                }
                if labels[b as usize] == NONE {
                    touched.push(b);
                }
                labels[b as usize] = rename(v);
            }
            match &snap.end {
                End::Walked {
                    paused,
                    fresh: f,
                    steps: n,
                } => {
                    steps += n - e.steps_at;
                    if *paused {
                        for &x in f {
                            fresh(x);
                        }
                    }
                    return (*paused, steps);
                }
                End::Link {
                    entry,
                    others,
                    steps: n,
                } => {
                    steps += n - e.steps_at;
                    target = others.iter().map(|&v| rename(v)).collect();
                    e = &self.entries[*entry as usize];
                }
            }
        }
    }

    /// Before replaying `r`: the cuts this walk recorded (`logging`) end at `r`'s cut, so they
    /// are kept as a part up to it and a link to it. Their labels are those at the blocks the
    /// exit check reads inside `r`'s cycle (outside it, the linked walk has them).
    pub fn link(&mut self, s: &Structure, po: &ModifiedPo, labels: &[u32], r: &Replay) {
        self.logging = false;
        self.charge_log();
        let levels = &self.levels;
        self.pending.retain(|p| levels[p.level].state == CUT);
        let cut = self.levels[r.level];
        let end = End::Link {
            entry: r.entry,
            others: self.others.clone().into_boxed_slice(),
            steps: r.steps_at,
        };
        self.keep(s, po, labels, Some(r.level), (cut.lo, cut.hi), end);
    }

    /// At the end of a walk that recorded cuts (`logging`): keeps those still valid, with the
    /// labels the walk left at the blocks the exit check reads outside the innermost of them
    /// (exits of every cycle from it out, headers of the cycles around it) and the top-level
    /// cycle's exits among them. `fresh_in(lo, hi)`: whether a fresh index lies in `lo..hi` (a
    /// label changed inside the cycle after its cut and the walk stopped before processing
    /// it); `pause_fresh`: the fresh blocks if the walk paused.
    #[allow(clippy::too_many_arguments)]
    pub fn finish(
        &mut self,
        s: &Structure,
        po: &ModifiedPo,
        labels: &[u32],
        fresh_in: impl Fn(u32, u32) -> bool,
        paused: bool,
        pause_fresh: &[u32],
        steps: u64,
    ) {
        self.logging = false;
        self.charge_log();
        let levels = &self.levels;
        self.pending.retain(|p| {
            let l = levels[p.level];
            l.state == CUT && !fresh_in(l.lo, l.hi)
        });
        let end = End::Walked {
            paused,
            fresh: pause_fresh.to_vec(),
            steps,
        };
        self.keep(s, po, labels, None, (0, u32::MAX), end);
    }

    /// Charges the walk's log to the memo's budget whether or not it is kept: a log is written
    /// as the walk goes, and walks whose cuts are spoilt (the walk came back into the cycle)
    /// would otherwise log without end where few cuts survive (precise mode logs every join).
    fn charge_log(&mut self) {
        self.kept += self.log.len();
    }

    /// Stores the pending cuts with one snapshot of the log and of the labels at the read
    /// blocks outside the innermost pending cycle and inside `within`, from the levels up to
    /// `upto` (all levels when `None`).
    fn keep(
        &mut self,
        s: &Structure,
        po: &ModifiedPo,
        labels: &[u32],
        upto: Option<usize>,
        within: (u32, u32),
        end: End,
    ) {
        let Some(k0) = self.pending.iter().map(|p| p.level).min() else {
            return;
        };

        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.fill(0);
            self.stamp = 1;
        }
        let (lo, hi) = (self.levels[k0].lo, self.levels[k0].hi);
        let last = upto.unwrap_or(self.levels.len() - 1);
        let mut kept = Vec::new();
        for (k, l) in self.levels[k0..=last].iter().enumerate() {
            let header = (k > 0).then(|| po.index[s.header(l.c).index()]);
            for b in s
                .exits(l.c)
                .iter()
                .map(|x| po.index[x.index()])
                .chain(header)
            {
                if self.seen[b as usize] == self.stamp
                    || (lo <= b && b < hi)
                    || !(within.0 <= b && b < within.1)
                {
                    continue;
                }
                self.seen[b as usize] = self.stamp;
                let v = labels[b as usize];
                if v != NONE {
                    kept.push((b, v));
                }
            }
        }
        let extra = match &end {
            End::Walked { fresh, .. } => fresh.len(),
            End::Link { others, .. } => others.len(),
        };
        self.kept += 2 * kept.len() + extra + 8;
        let snap = self.snaps.len() as u32;
        self.snaps.push(Snapshot {
            log: self.log.clone(),
            labels: kept,
            end,
        });
        for p in self.pending.drain(..) {
            self.kept += p.key.len() + p.others.len() + 8;
            let l = self.levels[p.level];
            let e = self.entries.len() as u32;
            self.entries.push(Entry {
                snap,
                others: p.others,
                log_at: p.log_at,
                steps_at: p.steps_at,
                lo: l.lo,
                hi: l.hi,
            });
            self.map.entry(p.key).or_insert(e);
        }
    }
}
