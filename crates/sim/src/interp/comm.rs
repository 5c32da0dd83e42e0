//! Communicating operations evaluated over exactly the converged threads of a released group
//! (ballots, broadcasts, reductions, shuffles, votes; other convergent calls as a hash of the group).

use super::*;

impl Exec<'_, '_> {
    /// Evaluates a communicating operation for its converged threads and resumes them.
    pub(crate) fn release(&mut self, threads: &mut [Thread], members: &[usize], i: u32) {
        let i = i as usize;
        if let Some(&k) = members.first() {
            self.at(threads[k].fr.func);
        }
        let inst = &self.p.f.insts[i];
        let ty = inst.ty;
        let w = self.p.int_width(ty);
        if self.p.kinds[i] == Kind::Mem {
            return self.release_mem(threads, members, i);
        }
        let Kind::Call(CallKind::Comm(op)) = self.p.kinds[i] else {
            return;
        };
        let tids: Vec<u32> = members.iter().map(|&k| threads[k].tid).collect();
        let arg = |k: usize, a: usize| -> Val {
            threads[k]
                .pending
                .as_ref()
                .and_then(|p| p.2.get(a).cloned())
                .unwrap_or(Val::Undef)
        };
        let lane_of = |k: usize| threads[k].tid % self.opts.target.wave_size();
        let ballot = |pred: &dyn Fn(usize) -> bool| -> u128 {
            let mut m = 0u128;
            for &k in members {
                if pred(k) {
                    m |= 1u128 << (lane_of(k) % 128);
                }
            }
            m
        };
        let first = members[0];
        let mut results: Vec<Val> = Vec::with_capacity(members.len());
        for &k in members {
            let v = match op {
                Comm::ReadFirstLane | Comm::SgBroadcastFirst => arg(first, 0),
                Comm::ReadLane => {
                    // The lane index is a scalar operand: the hardware reads it once for the
                    // wave (from the first active lane when it is not uniform).
                    let lane = arg(first, 1).bits() as u32;
                    members
                        .iter()
                        .find(|&&j| lane_of(j) == lane)
                        .map_or(Val::Undef, |&j| arg(j, 0))
                }
                Comm::Ballot => Val::I(ballot(&|j| arg(j, 0).bits() & 1 == 1) & mask(w)),
                Comm::AmdIcmp => {
                    let pred = arg(k, 2).bits() as u8;
                    let ow = 64;
                    Val::I(
                        ballot(&|j| icmp_raw(pred, arg(j, 0).bits(), arg(j, 1).bits(), ow))
                            & mask(w),
                    )
                }
                Comm::AmdFcmp => {
                    let pred = arg(k, 2).bits() as u8;
                    Val::I(
                        ballot(&|j| fcmp_raw(pred, fval(&arg(j, 0)), fval(&arg(j, 1)))) & mask(w),
                    )
                }
                Comm::IfBreak => {
                    Val::I((ballot(&|j| arg(j, 0).bits() & 1 == 1) | arg(k, 1).bits()) & mask(w))
                }
                Comm::Reduce(r) => {
                    let mut acc: Option<u128> = None;
                    let float = self.p.is_f32(ty) || matches!(self.p.ty(ty), Type::Double);
                    if float {
                        let s: f64 = members.iter().map(|&j| fval(&arg(j, 0))).sum();
                        Val::F(if self.p.is_f32(ty) {
                            s as f32 as f64
                        } else {
                            s
                        })
                    } else {
                        for &j in members {
                            let x = arg(j, 0).bits() & mask(w);
                            acc = Some(match acc {
                                None => x,
                                Some(a) => match r {
                                    Red::Add => a.wrapping_add(x),
                                    Red::Min => {
                                        if sext(a, w) <= sext(x, w) {
                                            a
                                        } else {
                                            x
                                        }
                                    }
                                    Red::Max => {
                                        if sext(a, w) >= sext(x, w) {
                                            a
                                        } else {
                                            x
                                        }
                                    }
                                    Red::UMin => a.min(x),
                                    Red::UMax => a.max(x),
                                    Red::And => a & x,
                                    Red::Or => a | x,
                                    Red::Xor => a ^ x,
                                },
                            });
                        }
                        Val::I(acc.unwrap_or(0) & mask(w))
                    }
                }
                Comm::Permlane16 { cross, var } => {
                    // v_permlane16/x16: lane `l` reads `src0` of the lane its 4-bit select names
                    // in its own 16-lane row (x16: the other row of the pair). A source lane that
                    // is not executing this instance gives `old` (`bound_ctrl`: 0; `fi`, fetch
                    // inactive: that lane's stale register, a value of its own).
                    let l = lane_of(k);
                    let (row, i16) = (l / 16, l % 16);
                    let sel = if var {
                        arg(k, 2).bits() as u32 & 0xF
                    } else {
                        let s = (arg(k, 3).bits() << 32) | (arg(k, 2).bits() & 0xFFFF_FFFF);
                        ((s >> (4 * i16)) & 0xF) as u32
                    };
                    let src = if cross { row ^ 1 } else { row } * 16 + sel;
                    let (fi, bc) = if var { (3, 4) } else { (4, 5) };
                    match members.iter().find(|&&j| lane_of(j) == src) {
                        Some(&j) => arg(j, 1),
                        None if arg(k, fi).bits() & 1 == 1 => self.value_of_bits(
                            mix2(mix2(self.opts.seed ^ 0x5E, i as u64), src as u64) as u128,
                            ty,
                        ),
                        None if arg(k, bc).bits() & 1 == 1 => self.zero(ty),
                        None => arg(k, 0),
                    }
                }
                Comm::Permlane64 => {
                    let lane = lane_of(k) ^ 32;
                    members
                        .iter()
                        .find(|&&j| lane_of(j) == lane)
                        .map_or(Val::Undef, |&j| arg(j, 0))
                }
                Comm::Bpermute => {
                    let lane = ((arg(k, 0).bits() as u32) / 4) % 64;
                    members
                        .iter()
                        .find(|&&j| lane_of(j) == lane)
                        .map_or(Val::Undef, |&j| arg(j, 1))
                }
                Comm::SgShuffle => {
                    let lane = arg(k, 1).bits() as u32;
                    members
                        .iter()
                        .find(|&&j| lane_of(j) == lane)
                        .map_or(Val::Undef, |&j| arg(j, 0))
                }
                Comm::NvBallot => Val::I(ballot(&|j| arg(j, 1).bits() & 1 == 1) & mask(w)),
                Comm::NvAny => Val::I(members.iter().any(|&j| arg(j, 1).bits() & 1 == 1) as u128),
                Comm::NvAll => Val::I(members.iter().all(|&j| arg(j, 1).bits() & 1 == 1) as u128),
                Comm::NvUni => {
                    let b0 = arg(first, 1).bits() & 1;
                    Val::I(members.iter().all(|&j| arg(j, 1).bits() & 1 == b0) as u128)
                }
                Comm::NvActiveMask => Val::I(ballot(&|_| true) & mask(w)),
                Comm::NvShfl(mode) => {
                    let me = lane_of(k) as i64;
                    let b = arg(k, 2).bits() as i64;
                    let src = match mode {
                        0 => b & 31,
                        1 => me - b,
                        2 => me + b,
                        _ => me ^ b,
                    };
                    if !(0..32).contains(&src) {
                        arg(k, 1)
                    } else {
                        members
                            .iter()
                            .find(|&&j| lane_of(j) as i64 == src)
                            .map_or(arg(k, 1), |&j| arg(j, 1))
                    }
                }
                Comm::Barrier(r) => {
                    let pred = |j: usize| arg(j, 0).bits() & 1 == 1;
                    match r {
                        1 => Val::I(members.iter().all(|&j| pred(j)) as u128),
                        2 => Val::I(members.iter().any(|&j| pred(j)) as u128),
                        3 => Val::I(members.iter().filter(|&&j| pred(j)).count() as u128 & mask(w)),
                        _ => Val::Undef,
                    }
                }
                Comm::Opaque => {
                    let mut x = mix2(0x0BAD, i as u64);
                    for &tid in &tids {
                        x = mix2(x, tid as u64);
                    }
                    self.value_of_bits(x as u128 | ((mix(x) as u128) << 64), ty)
                }
            };
            results.push(v);
        }
        if matches!(op, Comm::Barrier(_)) && members.len() < self.opts.threads as usize {
            // A work-group barrier must be executed by every thread of the group, converged
            // (CUDA `__syncthreads`, OpenCL `barrier`): anything else is undefined behaviour.
            let mut tids = tids.clone();
            tids.sort_unstable();
            let list: Vec<String> = tids.iter().map(u32::to_string).collect();
            let at = self.describe_inst(i);
            self.violations.push(format!(
                "barrier @{} {at} reached converged by threads [{}] only, of {}",
                callee_name_of(self.p.m, self.p.f, InstId(i as u32)),
                list.join(" "),
                self.opts.threads
            ));
        }
        for (n, &k) in members.iter().enumerate() {
            let t = &mut threads[k];
            let key = t.pending.take().map(|p| p.1);
            t.state = TState::Running;
            let v = results[n].clone();
            // The converged instances of a communicating operation are its group.
            t.fr.regs[i] = v.clone();
            t.fr.pos += 1;
            if !matches!(self.p.ty(inst.ty), Type::Void) && t.stack.is_empty() {
                t.records.push(Record {
                    inst: InstId(i as u32),
                    class: key.unwrap_or(NONE),
                    val: v,
                });
            }
        }
    }
}
