//! What orders accesses of different threads beyond their block's barriers
//! and their warp's syncs, as the PTX ISA's memory model says: a *release
//! pattern* publishes what its thread knows at the address it writes to,
//! and an *acquire pattern* that reads that address takes it over (see
//! `hazard` for the rule those make).
//!
//! - A release: `st.release`, an atomic with `.release` or `.acq_rel`, or a
//!   fence (`fence.sc`, `fence.acq_rel`, `fence.release`, `membar`)
//!   followed by any strong write (`st.relaxed`, `st.volatile`, an atomic)
//!   of the same thread: the write releases at the narrower of the two
//!   scopes.
//! - An acquire: `ld.acquire`, an atomic with `.acquire` or `.acq_rel`, or
//!   a strong read (`ld.relaxed`, `ld.volatile`, an atomic) followed by a
//!   fence (`fence.sc`, `fence.acq_rel`, `fence.acquire`, `membar`): the
//!   fence acquires at the narrower scope what was released where the read
//!   read. A strong read with no fence after it acquires nothing, and the
//!   thread remembers it, so that a race that follows can say so.
//! - The two synchronize only when they are *morally strong*: each one's
//!   scope includes the other's thread. A block-scope release orders
//!   nothing for another block; a device-scope one nothing for another GPU.
//!
//! Each release is kept with its rank, its scope, and the block and
//! cluster it came from (or that it came from several). An acquire takes
//! over each release whose scope includes it and which its own scope
//! includes; where releases of several blocks are kept together, a
//! block-scope acquire takes them over (generous, never strict). An
//! acquire that finds only releases it cannot take for their scopes takes
//! nothing, and the pair is kept, so that the race that follows can say why.

use crate::hazard::{Access, Knowledge, Strength};
use crate::parse::inst::Scope;
use crate::thread::{Fenced, Mark, ThreadState};
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// What the releases of one rank at one scope (for a block's or a
/// cluster's scope: of that block or cluster) published at an address.
#[derive(Debug, Clone, PartialEq)]
pub struct Published {
    pub rank: u32,
    pub scope: Scope,
    /// The block (`.cta`) or cluster (`.cluster`) the scope is that of; 0
    /// for the device's and the system's.
    pub group: u32,
    /// The block and the cluster the releases came from; `None` once they
    /// came from several.
    pub from_block: Option<u32>,
    pub from_cluster: Option<u32>,
    pub knows: Knowledge,
}

impl Published {
    /// Whether this release's scope includes thread `t`.
    fn reaches(&self, t: &ThreadState) -> bool {
        match self.scope {
            Scope::Cta => self.rank == t.rank && self.group == t.block_id,
            Scope::Cluster => self.rank == t.rank && self.group == t.cluster_id,
            Scope::Gpu => self.rank == t.rank,
            Scope::Sys => true,
        }
    }

    /// Whether an acquire at `scope` by `t` includes the releasing threads.
    fn seen_by(&self, t: &ThreadState, scope: Scope) -> bool {
        match scope {
            Scope::Cta => self.rank == t.rank && self.from_block.is_none_or(|b| b == t.block_id),
            Scope::Cluster => {
                self.rank == t.rank && self.from_cluster.is_none_or(|c| c == t.cluster_id)
            }
            Scope::Gpu => self.rank == t.rank,
            Scope::Sys => true,
        }
    }
}

/// The group a release at `scope` by `t` belongs to (see [`Published::group`]).
fn group(t: &ThreadState, scope: Scope) -> u32 {
    match scope {
        Scope::Cta => t.block_id,
        Scope::Cluster => t.cluster_id,
        Scope::Gpu | Scope::Sys => 0,
    }
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
    /// (acquiring block, releasing block) of one rank, likewise: a scope
    /// narrower than the device's kept them apart.
    missed_blocks: BTreeSet<(u32, u32)>,
}

impl Publications {
    /// A release by `t` to `addr` at `scope`: what `t` knows is published there.
    pub fn release(&mut self, t: &mut ThreadState, addr: u64, scope: Scope) {
        let now = t.mark();
        self.publish(t, addr, scope, &now);
    }

    /// A release of what `mark` says `t` had done and known, by `t`'s
    /// strong write to `addr` (the release pattern publishes the thread as
    /// it was at its fence: nothing it did after the fence).
    fn publish(&mut self, t: &mut ThreadState, addr: u64, scope: Scope, mark: &Mark) {
        let g = group(t, scope);
        let list = self.by_address.entry(addr).or_default();
        let at = match list
            .iter()
            .position(|p| p.rank == t.rank && p.scope == scope && p.group == g)
        {
            Some(at) => at,
            None => {
                list.push(Published {
                    rank: t.rank,
                    scope,
                    group: g,
                    from_block: Some(t.block_id),
                    from_cluster: Some(t.cluster_id),
                    knows: Knowledge::default(),
                });
                list.len() - 1
            }
        };
        let p = &mut list[at];
        if p.from_block != Some(t.block_id) {
            p.from_block = None;
        }
        if p.from_cluster != Some(t.cluster_id) {
            p.from_cluster = None;
        }
        let entry = &mut p.knows;
        entry.merge(&mark.knows);
        let r = entry.threads.entry(t.index).or_insert(0);
        *r = (*r).max(mark.released);
        let e = entry.blocks.entry(t.block_id).or_insert(0);
        *e = (*e).max(mark.epoch);
        if let Some(step) = self.step {
            let s = entry.ranks.entry(t.rank).or_insert(0);
            *s = (*s).max(step);
        }
        t.released += 1;
    }

    /// An acquire by `t` of `addr` at `scope`: it takes over each release
    /// there that is morally strong with it (each scope includes the
    /// other's thread).
    pub fn acquire(&mut self, t: &mut ThreadState, addr: u64, scope: Scope) {
        let Some(list) = self.by_address.get(&addr) else {
            return;
        };
        for p in list.iter().filter(|p| !p.knows.is_empty()) {
            if p.reaches(t) && p.seen_by(t, scope) {
                Arc::make_mut(&mut t.knows).merge(&p.knows);
            } else if p.rank != t.rank {
                self.missed.insert((t.rank, p.rank));
            } else {
                self.missed_blocks
                    .insert((t.block_id, p.from_block.unwrap_or(u32::MAX)));
            }
        }
    }

    /// Whether rank `acquirer` acquired a release of rank `releaser` that
    /// a scope narrower than the system's made useless.
    pub fn missed(&self, acquirer: u32, releaser: u32) -> bool {
        self.missed.contains(&(acquirer, releaser))
    }

    /// Whether block `acquirer` acquired a release of block `releaser` (of
    /// its rank) that a block's or a cluster's scope made useless.
    pub fn missed_block(&self, acquirer: u32, releaser: u32) -> bool {
        self.missed_blocks.contains(&(acquirer, releaser))
            || self.missed_blocks.contains(&(acquirer, u32::MAX))
    }

    /// A new launch is ordered after everything before it.
    pub fn clear(&mut self) {
        self.by_address.clear();
    }
}

/// Strong reads a thread remembers until a fence makes them acquires.
const STRONG_READS_KEPT: usize = 8;

/// A strong read by `t` of `addr` at `scope` (`ld.relaxed`, `ld.volatile`,
/// an atomic without `.acquire`), at `.loc` line `line`: remembered until a
/// fence turns it into an acquire (the ISA's acquire pattern).
pub fn strong_read(t: &mut ThreadState, addr: u64, scope: Scope, line: u32) {
    let reads = &mut t.strong_reads;
    match reads.iter().position(|r| r.0 == addr) {
        Some(i) => reads[i].1 = reads[i].1.max(scope),
        None if reads.len() < STRONG_READS_KEPT => reads.push((addr, scope)),
        None => {}
    }
    t.unfenced_read = Some(line);
}

/// What a fence instruction does, as the race rule sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fence {
    pub scope: Scope,
    /// `fence.sc`, `fence.acq_rel`, `membar`, `fence.acquire`.
    pub acquires: bool,
    /// `fence.sc`, `fence.acq_rel`, `membar`, `fence.release`.
    pub releases: bool,
}

/// A fence by `t`: as an acquire, the strong reads since the last such
/// fence take over what was released where they read (the ISA's acquire
/// pattern); as a release, every strong write after it releases (see
/// [`strong_write`]).
///
/// A `fence.sc` does that and no more here. The ISA puts morally strong
/// `fence.sc`s in one Fence-SC order, each synchronizing with the ones
/// after it, but it lets that order go either way between two fences that
/// nothing else orders: taking it as the order in which they happened to
/// run would let one interleaving hide a race that another shows (a
/// writer's `atomicAdd` then `__threadfence()`, read by a last block's
/// `atomicAdd` then `__threadfence()`: the writer's store is ordered
/// before the reader's load only if the writer's fence comes first, which
/// nothing promises; the fence belongs before the atomic).
pub fn fence(t: &mut ThreadState, p: &mut Publications, f: Fence) {
    if f.acquires {
        for (addr, read_scope) in std::mem::take(&mut t.strong_reads) {
            p.acquire(t, addr, read_scope.min(f.scope));
        }
        t.unfenced_read = None;
    }
    if f.releases {
        // The mark covers the accesses before the fence; the count moves
        // on, so that none after it is covered by this fence's releases.
        let mark = t.mark();
        t.released += 1;
        let scope = t.fenced.as_ref().map_or(f.scope, |w| w.scope.max(f.scope));
        t.fenced = Some(Fenced { scope, mark });
    }
}

/// A strong write by `t` to `addr` at `scope`, where it releases: as
/// `.release` (`explicit`), everything `t` did and knew until now; after a
/// releasing fence, everything until that fence, at the narrower of the two
/// scopes.
pub fn strong_write(
    t: &mut ThreadState,
    p: &mut Publications,
    addr: u64,
    scope: Scope,
    explicit: bool,
) {
    if explicit {
        p.release(t, addr, scope);
    } else if let Some(fenced) = t.fenced.clone() {
        p.publish(t, addr, fenced.scope.min(scope), &fenced.mark);
    }
}

/// Why two conflicting accesses of one rank race, where the memory model
/// has more to say than "nothing orders them" (`None`: the caller's words
/// for barriers and warps apply): strong accesses whose scopes keep them
/// apart, an atomic against a plain access, two blocks with no release and
/// acquire between them (and, where both accesses write, the atomic an
/// accumulation across blocks needs). `{read_line}` stands for the line of the
/// thread's last strong read with no fence after it (`unfenced_read`).
pub fn unordered(
    now: &Access,
    other: &Access,
    unfenced_read: Option<u32>,
    missed_block: bool,
    both_write: bool,
) -> Option<String> {
    let (a, b) = (now.strength.scope(), other.strength.scope());
    if a.is_some() && b.is_some() {
        if now.strength == Strength::Volatile && other.strength == Strength::Volatile {
            return Some(
                "PTX reads `volatile` as relaxed at system scope, so the ISA calls these two \
                 accesses no data race, but nothing orders them: which value is read depends on \
                 which lane runs first, and since Volta the lanes of a warp are not promised to \
                 run in step (the warp-synchronous idiom): put __syncwarp() between the steps"
                    .into(),
            );
        }
        if now.bytes != other.bytes {
            return Some(
                "two atomics are *morally strong*, and so no race, only when they cover the same \
                 bytes; these overlap without being the same: access the word whole on both sides"
                    .into(),
            );
        }
        let narrow = if a < b { a } else { b };
        let (scope, widen) = match narrow {
            Some(Scope::Cta) => (
                "block",
                "device scope (`atomicAdd`, not `atomicAdd_block`; `cuda::thread_scope_device`)",
            ),
            _ => ("cluster", "device scope (`cuda::thread_scope_device`)"),
        };
        return Some(format!(
            "a {scope}-scope atomic is atomic only for the threads of its own {scope}: PTX calls two \
             strong accesses *morally strong*, and so no race, only when each one's scope includes \
             the other's thread, and these two are of different {scope}s: use {widen} on both sides"
        ));
    }
    if a.is_some() || b.is_some() {
        return Some(
            "an atomic (or a volatile, relaxed, acquire or release access) and a plain access of \
             the same word race unless one happens before the other: PTX excuses a conflict only \
             between two strong accesses. Make the plain access atomic too, or order the two with \
             a release and an acquire (a fence before the flag's write, another after its read)"
                .into(),
        );
    }
    if missed_block {
        return Some(
            "a release or an acquire between them was at block scope (`__threadfence_block()`, \
             `cuda::thread_scope_block`), which orders nothing for another block: PTX's release \
             and acquire synchronize only when each one's scope includes the other's thread. Use \
             device scope (`__threadfence()`, `cuda::thread_scope_device`)"
                .into(),
        );
    }
    if now.block == other.block {
        return None;
    }
    let mut why = String::from(
        "threads of different blocks are never ordered within one launch (__syncthreads() waits \
         for its own block only) unless a release and an acquire order them: a fence \
         (__threadfence()) before the write of a flag, and another after the read that sees it \
         (or `st.release` and `ld.acquire`); else split the work into two launches",
    );
    if both_write {
        why.push_str(
            ". Where blocks add into the same element, make the addition one atomicAdd: a read, \
             add and write that no other thread can come between",
        );
    }
    if unfenced_read.is_some() {
        why.push_str(
            ". The read at line {read_line} is relaxed (volatile, or an atomic with no memory \
             order), and PTX makes a relaxed read an acquire only when a fence follows it: if it \
             waits for a flag, put __threadfence() after the wait, or read the flag with \
             `ld.acquire` (`cuda::atomic_ref::load(cuda::memory_order_acquire)`)",
        );
    }
    Some(why)
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
            index,
            rank,
            block_id: index,
            cluster_id: index,
            ..ThreadState::default()
        }
    }

    /// (case, releasing rank and scope, acquiring rank and scope, whether the
    /// acquirer learns the releaser's accesses, whether a miss is kept).
    #[test]
    fn scopes_across_ranks_table() {
        use Scope::*;
        let cases = [
            ("one rank, device scope", (0, Gpu), (0, Gpu), true, false),
            // A block-scope release reaches no other block (here 9 of 7).
            ("one rank, block scope", (0, Cta), (0, Gpu), false, false),
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

    /// Within one rank: (case, releasing block and scope, acquiring block
    /// and scope, whether the acquirer learns, whether the pair of blocks
    /// is kept as missed). Blocks 0 and 1 share cluster 0; block 2 is
    /// cluster 1.
    #[test]
    fn scopes_within_a_rank_table() {
        use Scope::*;
        let cases = [
            ("device scope, other block", (1, Gpu), (0, Gpu), true, false),
            ("block scope, same block", (0, Cta), (0, Cta), true, false),
            (
                "block-scope release, other block",
                (1, Cta),
                (0, Gpu),
                false,
                true,
            ),
            (
                "block-scope acquire, other block",
                (1, Gpu),
                (0, Cta),
                false,
                true,
            ),
            (
                "cluster scope, same cluster",
                (1, Cluster),
                (0, Cluster),
                true,
                false,
            ),
            (
                "cluster scope, other cluster",
                (2, Cluster),
                (0, Gpu),
                false,
                true,
            ),
            (
                "cluster acquire, other cluster",
                (2, Gpu),
                (0, Cluster),
                false,
                true,
            ),
            ("system scope, other block", (2, Sys), (0, Cta), false, true),
        ];
        for (case, (b1, s1), (b2, s2), learns, missed) in cases {
            let mut p = Publications::default();
            let mut writer = thread(0, 10 + b1);
            writer.block_id = b1;
            writer.cluster_id = b1 / 2;
            let mut reader = thread(0, 20 + b2);
            reader.block_id = b2;
            reader.cluster_id = b2 / 2;
            p.release(&mut writer, 64, s1);
            p.acquire(&mut reader, 64, s2);
            assert_eq!(
                reader.knows.threads.contains_key(&(10 + b1)),
                learns,
                "{case}"
            );
            assert_eq!(p.missed_block(b2, b1), missed, "{case}");
        }
    }

    /// The ISA's patterns: a strong read acquires only once a fence follows
    /// it; a fence makes every later strong write a release, at the
    /// narrower scope.
    #[test]
    fn fence_patterns_table() {
        use Scope::*;
        let acq_rel = |scope| Fence {
            scope,
            acquires: true,
            releases: true,
        };
        // (case, fence before the write, fence after the read, learns)
        let cases = [
            ("no fences", None, None, false),
            ("fence, write; read, fence", Some(Gpu), Some(Gpu), true),
            ("fence, write; read only", Some(Gpu), None, false),
            ("write only; read, fence", None, Some(Gpu), false),
            (
                "block-scope fences between blocks",
                Some(Cta),
                Some(Cta),
                false,
            ),
        ];
        for (case, before, after, learns) in cases {
            let mut p = Publications::default();
            let mut writer = thread(0, 1);
            let mut reader = thread(0, 2);
            if let Some(s) = before {
                fence(&mut writer, &mut p, acq_rel(s));
            }
            strong_write(&mut writer, &mut p, 64, Gpu, false);
            strong_read(&mut reader, 64, Gpu, 5);
            assert_eq!(reader.unfenced_read, Some(5), "{case}");
            if let Some(s) = after {
                fence(&mut reader, &mut p, acq_rel(s));
                assert_eq!(reader.unfenced_read, None, "{case}");
            }
            assert_eq!(reader.knows.threads.contains_key(&1), learns, "{case}");
        }
    }

    /// A release pattern publishes its thread as it was at the fence: an
    /// access between the fence and the strong write stays unordered (the
    /// hazard rule orders an access made at release count `c` before a
    /// reader that knows more than `c`), whichever kind of fence it is.
    #[test]
    fn a_fence_releases_only_what_came_before_it_table() {
        use Scope::*;
        for (case, fence_kind) in [
            (
                "fence.acq_rel",
                Fence {
                    scope: Gpu,
                    acquires: true,
                    releases: true,
                },
            ),
            (
                "fence.release",
                Fence {
                    scope: Gpu,
                    acquires: false,
                    releases: true,
                },
            ),
        ] {
            let mut p = Publications::default();
            let mut writer = thread(0, 1);
            let before = writer.released;
            fence(&mut writer, &mut p, fence_kind);
            let after = writer.released;
            strong_write(&mut writer, &mut p, 64, Gpu, false);
            let mut reader = thread(0, 2);
            strong_read(&mut reader, 64, Gpu, 5);
            fence(
                &mut reader,
                &mut p,
                Fence {
                    scope: Gpu,
                    acquires: true,
                    releases: true,
                },
            );
            let known = reader.knows.threads[&1];
            assert!(
                before < known,
                "{case}: the access before the fence is ordered"
            );
            assert!(after >= known, "{case}: the access after it is not");
        }
    }

    /// Two `fence.sc`s, one after the other, order nothing between their
    /// threads by themselves, whatever their scopes: the Fence-SC order may
    /// go either way (case, first fence's block and scope, second's).
    #[test]
    fn fence_sc_alone_orders_nothing_table() {
        use Scope::*;
        let cases = [
            ("device scope, two blocks", (1, Gpu), (2, Gpu)),
            ("block scope, one block", (1, Cta), (1, Cta)),
            ("block scope, two blocks", (1, Cta), (2, Cta)),
            ("device, then block scope elsewhere", (1, Gpu), (2, Cta)),
        ];
        for (case, (b1, s1), (b2, s2)) in cases {
            let mut p = Publications::default();
            let mut first = thread(0, 10);
            first.block_id = b1;
            let mut second = thread(0, 20);
            second.block_id = b2;
            let sc = |scope| Fence {
                scope,
                acquires: true,
                releases: true,
            };
            fence(&mut first, &mut p, sc(s1));
            fence(&mut second, &mut p, sc(s2));
            assert!(!second.knows.threads.contains_key(&10), "{case}");
        }
    }
}
