//! What orders accesses of different threads beyond their block's barriers
//! and their warp's syncs: a release (`st.release`, an atomic with
//! `.release` or `.acq_rel`, any atomic after a fence) publishes what its
//! thread knows at the address it releases to, and an acquire of that
//! address takes it over (see `hazard` for the rule those make).
//!
//! Each release is kept with its rank and whether its scope was the
//! system's. Within a rank every scope orders (the checker does not tell a
//! block's scope from the device's); across ranks only a release at system
//! scope, seen by an acquire at system scope, does. An acquire that finds
//! only another rank's narrower release takes nothing, and the pair of
//! ranks is kept, so that the race that follows can say why.

use crate::hazard::Knowledge;
use crate::parse_inst::Scope;
use crate::thread::ThreadState;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// What the releases of one rank at one kind of scope published at an address.
#[derive(Debug, Clone, PartialEq)]
pub struct Published {
    pub rank: u32,
    /// Released at system scope (`.sys`): seen from every rank.
    pub system: bool,
    pub knows: Knowledge,
}

/// What releases published, by the address they released to. A location
/// keeps everything ever released to it (generous, never strict).
#[derive(Debug, Default)]
pub struct Publications {
    by_address: HashMap<u64, Vec<Published>>,
    /// The step of a run of several ranks (`None` in a run of one): a
    /// release publishes its rank's steps before it.
    pub step: Option<u32>,
    /// (acquiring rank, releasing rank) where an acquire found a release it
    /// could not take over for its scope.
    missed: BTreeSet<(u32, u32)>,
}

impl Publications {
    /// A release by `t` to `addr` at `scope`: what `t` knows is published there.
    pub fn release(&mut self, t: &mut ThreadState, addr: u64, scope: Scope) {
        let system = scope == Scope::Sys;
        let list = self.by_address.entry(addr).or_default();
        let at = match list
            .iter()
            .position(|p| p.rank == t.rank && p.system == system)
        {
            Some(at) => at,
            None => {
                list.push(Published {
                    rank: t.rank,
                    system,
                    knows: Knowledge::default(),
                });
                list.len() - 1
            }
        };
        let entry = &mut list[at].knows;
        entry.merge(&t.knows);
        let r = entry.threads.entry(t.index).or_insert(0);
        *r = (*r).max(t.released + 1);
        let e = entry.blocks.entry(t.block_id).or_insert(0);
        *e = (*e).max(t.epoch);
        if let Some(step) = self.step {
            let s = entry.ranks.entry(t.rank).or_insert(0);
            *s = (*s).max(step);
        }
        t.released += 1;
    }

    /// An acquire by `t` of `addr` at `scope`: it takes over what its own
    /// rank published there, and what other ranks published at system
    /// scope if it acquires at system scope too.
    pub fn acquire(&mut self, t: &mut ThreadState, addr: u64, scope: Scope) {
        let Some(list) = self.by_address.get(&addr) else {
            return;
        };
        for p in list.iter().filter(|p| !p.knows.is_empty()) {
            if p.rank == t.rank || (p.system && scope == Scope::Sys) {
                Arc::make_mut(&mut t.knows).merge(&p.knows);
            } else {
                self.missed.insert((t.rank, p.rank));
            }
        }
    }

    /// Whether rank `acquirer` acquired a release of rank `releaser` that
    /// a scope narrower than the system's made useless.
    pub fn missed(&self, acquirer: u32, releaser: u32) -> bool {
        self.missed.contains(&(acquirer, releaser))
    }

    /// A new launch is ordered after everything before it.
    pub fn clear(&mut self) {
        self.by_address.clear();
    }
}

/// Why two ranks' accesses race: nothing but a flag orders different GPUs.
pub fn across_ranks(missed: bool) -> &'static str {
    if missed {
        "use cuda::thread_scope_system for the flag, on both sides: a device-scoped release \
         orders nothing for another GPU, and a device-scoped acquire takes nothing from one, \
         so these two accesses are not ordered"
    } else {
        "different GPUs' kernels are ordered only by a flag: a release at system scope \
         (cuda::thread_scope_system) after the one access, seen by an acquire at system scope \
         before the other (wait for the peer's signal before reading what it wrote, and signal \
         before it may overwrite what you read)"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thread(rank: u32, index: u32) -> ThreadState {
        ThreadState {
            regs: vec![],
            pc: 0,
            local: vec![],
            tid: [0; 3],
            linear: 0,
            index,
            rank,
            block_id: index,
            thread: Default::default(),
            reads: 0,
            writes: 0,
            epoch: 0,
            warp_epoch: 0,
            released: 0,
            knows: Default::default(),
            fenced: None,
            last_poll: None,
            stop: None,
            wgmma_reads: Default::default(),
        }
    }

    /// (case, releasing rank and scope, acquiring rank and scope, whether the
    /// acquirer learns the releaser's accesses, whether a miss is kept).
    #[test]
    fn scopes_across_ranks_table() {
        use Scope::*;
        let cases = [
            ("one rank, device scope", (0, Gpu), (0, Gpu), true, false),
            ("one rank, block scope", (0, Cta), (0, Gpu), true, false),
            ("two ranks, system scope", (1, Sys), (0, Sys), true, false),
            ("two ranks, device release", (1, Gpu), (0, Sys), false, true),
            ("two ranks, device acquire", (1, Sys), (0, Gpu), false, true),
        ];
        for (case, (r1, s1), (r2, s2), learns, missed) in cases {
            let mut p = Publications {
                step: Some(1),
                ..Publications::default()
            };
            let mut writer = thread(r1, 7);
            let mut reader = thread(r2, 9);
            p.release(&mut writer, 64, s1);
            p.acquire(&mut reader, 64, s2);
            assert_eq!(reader.knows.threads.contains_key(&7), learns, "{case}");
            assert_eq!(reader.knows.ranks.get(&r1) == Some(&1), learns, "{case}");
            assert_eq!(p.missed(r2, r1), missed, "{case}");
        }
    }
}
