//! The checks and the race rule.
//!
//! Races are found from the happens-before order, not from the schedule
//! that happened to run, following the "Memory Consistency Model" chapter
//! of the PTX ISA. Two accesses to one word *conflict* when they come from
//! different threads, at least one writes and their bytes overlap. A
//! conflict is a **data race** unless one access happens before the other,
//! or the two are *morally strong*: both strong (an atomic, or a load or
//! store with `.relaxed`, `.acquire`, `.release` or `.volatile`), covering
//! the same bytes, each one's scope (`.cta`, `.cluster`, `.gpu`, `.sys`)
//! including the other's thread. So an atomic and a plain store race, and
//! so do two block-scope atomics of different blocks. `.volatile` is what
//! the ISA says it is, `.relaxed.sys`, with one exception kept on purpose:
//! two volatile accesses by lanes of one warp that nothing orders are
//! reported, since the warp-synchronous idiom they come from gives a result
//! that depends on timing (the ISA calls it no data race; NVIDIA's
//! racecheck reports it, and so does this checker, saying why).
//!
//! What orders accesses (happens-before):
//!
//! - the same thread made both;
//! - a block-wide barrier (`bar.sync`, `barrier.sync`) of their block lies
//!   between them: each access carries its block's barrier count (epoch);
//! - a warp-wide sync (`bar.warp.sync`, `__syncwarp`) of their warp lies
//!   between them: each access carries its warp's sync count, and a
//!   block barrier counts as a warp sync too. Lanes of one warp are **not**
//!   assumed to run in lockstep (since Volta they do not, and NVIDIA's
//!   racecheck reports such hazards too), so `shfl.sync` and `vote.sync`
//!   exchange registers but order no memory;
//! - a release pattern that an acquire pattern observed, when the two are
//!   morally strong (see `order::release`): `st.release`, an atomic with `.release`
//!   or `.acq_rel`, or a fence (`fence.sc`, `fence.acq_rel`, `membar`)
//!   followed by any strong write releases what its thread knows, which is
//!   its own accesses so far, its block's accesses before its last barrier,
//!   and what it acquired itself; `ld.acquire`, an atomic with `.acquire`
//!   or `.acq_rel`, or a strong read followed by a fence takes over what
//!   was released at the location it read. An `mbarrier` arrival and a
//!   wait that saw its phase complete do the same. A block barrier then
//!   shares every thread's knowledge with the whole block. A location
//!   keeps everything ever released to it, which is generous where a later
//!   plain store breaks a release sequence (a race there may go
//!   unreported), never strict (no false report).
//!
//! Blocks of one launch are ordered by nothing else, and launches are
//! ordered one after another.
//!
//! In a run of several ranks (GPUs), each rank's launches of one step run
//! at the same time as the other ranks', so one more thing orders accesses,
//! and one thing less: a rank's own earlier steps come before its later
//! ones (one stream's order), and another rank's come only through a
//! release at system scope that an acquire at system scope saw (a release
//! by rank r in step s publishes rank r's steps before s). Nothing orders
//! the steps of different ranks otherwise.

use std::collections::BTreeMap;

/// Which threads a memory order or fence speaks for, narrowest first
/// (`membar.gl` is `.gpu`; `.gpu` where none is written, as for atomics).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Hash)]
pub enum Scope {
    /// The threads of one block (CTA).
    Cta,
    /// The threads of one cluster of blocks.
    Cluster,
    /// Every thread of the GPU.
    #[default]
    Gpu,
    /// Every thread of the system: other GPUs' (ranks') included.
    Sys,
}

/// How an access stands in the memory model: plain (weak), `.volatile`, or
/// strong at a scope (an atomic, or `.relaxed`, `.acquire`, `.release`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Strength {
    #[default]
    Plain,
    /// `.volatile`: `.relaxed.sys` for the ISA (see the module's notes).
    Volatile,
    Strong(Scope),
}

impl Strength {
    /// The scope of a strong access; `None` for a plain one.
    pub fn scope(self) -> Option<Scope> {
        match self {
            Strength::Plain => None,
            Strength::Volatile => Some(Scope::Sys),
            Strength::Strong(s) => Some(s),
        }
    }
}

/// The kinds of finding, shared with the other checker and the core.
pub use gpu_hazard::Kind;

/// A hazard at a line of the CUDA text NVRTC compiled (`at`: the `.loc`
/// line; 0 where the PTX says none). Its message names other places by the
/// caller's [`LineMap`].
pub type Hazard = gpu_hazard::Hazard<usize>;

/// The hazards of a run: at `.loc` lines, one per kind and line of the
/// caller's file.
pub type Hazards = gpu_hazard::Hazards<usize>;

/// Where a `.loc` line lies, as the line the caller's messages use (the
/// kernel file's own line, through whatever includes the caller expanded).
pub trait LineMap {
    fn line(&self, loc_line: usize) -> usize;
}

/// The plain [`LineMap`]: `.loc` lines are the lines messages name.
pub struct SameLines;

impl LineMap for SameLines {
    fn line(&self, loc_line: usize) -> usize {
        loc_line
    }
}

/// What a thread knows has happened before its next access, beyond its own
/// block's barriers and its warp's syncs: for threads elsewhere, the count
/// of releases after which their accesses are ordered; for blocks, the
/// barrier epoch before which all their accesses are; for ranks, the step
/// before which all their accesses are.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Knowledge {
    pub threads: BTreeMap<u32, u32>,
    pub blocks: BTreeMap<u32, u32>,
    pub ranks: BTreeMap<u32, u32>,
}

impl Knowledge {
    /// Takes over what `other` knows.
    pub fn merge(&mut self, other: &Knowledge) {
        for (&t, &r) in &other.threads {
            let e = self.threads.entry(t).or_insert(0);
            *e = (*e).max(r);
        }
        for (&b, &e) in &other.blocks {
            let x = self.blocks.entry(b).or_insert(0);
            *x = (*x).max(e);
        }
        for (&r, &s) in &other.ranks {
            let x = self.ranks.entry(r).or_insert(0);
            *x = (*x).max(s);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.threads.is_empty() && self.blocks.is_empty() && self.ranks.is_empty()
    }
}

/// One access to a word, as the race check remembers it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Access {
    /// The thread's index within the launch (unique across blocks).
    pub thread: u32,
    pub block: u32,
    /// The block's barriers the thread had passed.
    pub epoch: u32,
    /// The thread's warp (block-relative warps are unique within the launch
    /// once combined with the block) and the warp syncs it had passed.
    pub warp: u32,
    pub warp_epoch: u32,
    /// Releases the thread had made.
    pub released: u32,
    /// The thread's cluster (its block where there are no clusters).
    pub cluster: u32,
    /// Which bytes of the word (bit i: byte i).
    pub bytes: u8,
    /// The rank (GPU) and the step of the run of several ranks it was made
    /// in (0 and 0 in a run of one).
    pub rank: u8,
    pub step: u16,
    pub strength: Strength,
    /// The `.loc` line (u32 keeps a word's shadow small).
    pub line: u32,
}

impl Access {
    /// Whether `scope`, the scope of an operation by `self`'s thread,
    /// includes `other`'s thread.
    fn includes(&self, scope: Scope, other: &Access) -> bool {
        match scope {
            Scope::Cta => self.block == other.block && self.rank == other.rank,
            Scope::Cluster => self.cluster == other.cluster && self.rank == other.rank,
            Scope::Gpu => self.rank == other.rank,
            Scope::Sys => true,
        }
    }

    /// Whether two conflicting accesses are *morally strong* (the ISA's
    /// term): both strong, the same bytes, each one's scope including the
    /// other's thread. Such a pair is no data race.
    pub fn morally_strong(&self, other: &Access) -> bool {
        let (Some(a), Some(b)) = (self.strength.scope(), other.strength.scope()) else {
            return false;
        };
        self.bytes == other.bytes && self.includes(a, other) && other.includes(b, self)
    }

    /// Whether a conflict between `self` and `other` that nothing orders is
    /// excused: morally strong, except two volatile accesses by lanes of
    /// one warp (the warp-synchronous idiom; see the module's notes).
    #[inline]
    fn excused(&self, other: &Access) -> bool {
        if self.strength == Strength::Plain || other.strength == Strength::Plain {
            return false;
        }
        let warp_idiom = self.strength == Strength::Volatile
            && other.strength == Strength::Volatile
            && self.block == other.block
            && self.warp == other.warp
            && self.rank == other.rank;
        !warp_idiom && self.morally_strong(other)
    }
}

/// The accessing thread, with what it knows.
pub struct Now<'k> {
    pub access: Access,
    pub knows: &'k Knowledge,
}

impl Now<'_> {
    /// Whether `earlier`, made before in the simulation, is ordered before this access.
    #[inline(always)]
    fn after(&self, earlier: &Access) -> bool {
        let now = &self.access;
        earlier.thread == now.thread
            || earlier.bytes & now.bytes == 0
            || (earlier.block == now.block
                && (earlier.epoch < now.epoch
                    || (earlier.warp == now.warp && earlier.warp_epoch < now.warp_epoch)))
            || self
                .knows
                .threads
                .get(&earlier.thread)
                .is_some_and(|&r| earlier.released < r)
            || self
                .knows
                .blocks
                .get(&earlier.block)
                .is_some_and(|&e| earlier.epoch < e)
            || (earlier.step < now.step && self.after_step(earlier))
    }

    /// Whether `earlier`, made in an earlier step, is ordered before this
    /// access: by its rank's stream, or by a flag its rank released later.
    #[inline(never)]
    fn after_step(&self, earlier: &Access) -> bool {
        earlier.rank == self.access.rank
            || self
                .knows
                .ranks
                .get(&u32::from(earlier.rank))
                .is_some_and(|&s| u32::from(earlier.step) < s)
    }
}

/// The race check's memory of one word since the launch began: the shadow
/// both checkers share, in PTX's order.
pub type Shadow = gpu_hazard::Shadow<Access>;

/// PTX's order, as the shared shadow asks it.
impl gpu_hazard::Order for Now<'_> {
    type Access = Access;

    #[inline(always)]
    fn access(&self) -> Access {
        self.access
    }

    #[inline(always)]
    fn settles(&self, earlier: &Access) -> bool {
        self.after(earlier) || self.access.excused(earlier)
    }

    /// A read of the same block before its barrier, or (in a run of several
    /// ranks) of the same rank in an earlier step, of no more bytes.
    #[inline(always)]
    fn covers(&self, read: &Access) -> bool {
        let a = &self.access;
        read.bytes & !a.bytes == 0
            && ((read.block == a.block && read.epoch < a.epoch)
                || (a.step > 0 && read.rank == a.rank && read.step < a.step))
    }

    #[inline(always)]
    fn same_thread(&self, read: &Access) -> bool {
        read.thread == self.access.thread
    }

    /// A thread's later read of the same bytes replaces its earlier one: a
    /// writer must come after the later read too (a wgmma's operands, read
    /// again when its group retires, rely on this).
    #[inline(always)]
    fn replaces(&self, own: &Access) -> bool {
        self.access.bytes & own.bytes == own.bytes
    }

    #[inline(always)]
    fn bytes(&self) -> u8 {
        self.access.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(thread: u32, block: u32, epoch: u32) -> Access {
        Access {
            thread,
            block,
            epoch,
            warp: thread / 32,
            warp_epoch: epoch,
            released: 0,
            cluster: block,
            bytes: 0xF,
            rank: 0,
            step: 0,
            strength: Strength::Plain,
            line: 0,
        }
    }

    /// An access by thread `thread` of block `block` (unique in the run),
    /// on `rank`, in `step`.
    fn on(thread: u32, block: u32, rank: u8, step: u16) -> Access {
        Access {
            rank,
            step,
            ..at(thread, block, 0)
        }
    }

    /// A write, then a read: a block barrier orders its own block only;
    /// warp syncs order lanes of one warp only; disjoint bytes never race;
    /// an acquired release orders the releasing thread's earlier accesses,
    /// and a block entry orders everything its block did before that barrier.
    #[test]
    fn order_table() {
        let none = Knowledge::default();
        let mut lane = at(1, 0, 0);
        lane.warp_epoch = 1;
        let mut other_warp = at(40, 0, 0);
        other_warp.warp_epoch = 1;
        let mut half = at(2, 0, 0);
        half.bytes = 0x3;
        let mut other_half = at(3, 0, 0);
        other_half.bytes = 0xC;
        let from_thread = Knowledge {
            threads: BTreeMap::from([(0, 1)]),
            ..Knowledge::default()
        };
        let from_block = Knowledge {
            blocks: BTreeMap::from([(0, 1)]),
            ..Knowledge::default()
        };
        let reader = at(300, 2, 0);
        let cases: [(&str, Access, Access, &Knowledge, bool); 10] = [
            ("own word", at(0, 0, 0), at(0, 0, 0), &none, false),
            (
                "neighbour, no barrier",
                at(1, 0, 0),
                at(0, 0, 0),
                &none,
                true,
            ),
            (
                "neighbour after a barrier",
                at(1, 0, 0),
                at(0, 0, 1),
                &none,
                false,
            ),
            (
                "other block, later epoch",
                at(0, 0, 0),
                at(200, 1, 5),
                &none,
                true,
            ),
            ("lane after __syncwarp", at(0, 0, 0), lane, &none, false),
            (
                "other warp after its own __syncwarp",
                at(0, 0, 0),
                other_warp,
                &none,
                true,
            ),
            ("disjoint bytes of one word", half, other_half, &none, false),
            (
                "acquired a release of the writer",
                at(0, 0, 0),
                reader,
                &from_thread,
                false,
            ),
            (
                "acquired the writer's block before its barrier",
                at(5, 0, 0),
                reader,
                &from_block,
                false,
            ),
            (
                "acquired someone else",
                at(5, 0, 0),
                reader,
                &from_thread,
                true,
            ),
        ];
        for (name, first, second, knows, races) in cases {
            let mut shadow = Shadow::default();
            shadow.write(&Now {
                access: first,
                knows: &none,
            });
            let got = shadow.read(&Now {
                access: second,
                knows,
            });
            assert_eq!(got.is_some(), races, "{name}");
        }
    }

    /// A thread's later read of the same bytes replaces its earlier one, so
    /// a writer that acquired a release made between the two still races
    /// with the later read (a wgmma's operands, read again at the wait
    /// that retires them, after a stage was handed back too early).
    #[test]
    fn a_later_read_by_the_same_thread_counts() {
        // The writer knows thread 0's accesses made before its release 1.
        let from_thread = Knowledge {
            threads: BTreeMap::from([(0, 1)]),
            ..Knowledge::default()
        };
        let none = Knowledge::default();
        let mut after_release = at(0, 0, 0);
        after_release.released = 1;
        let mut half = after_release;
        half.bytes = 0x3;
        let writer = at(300, 2, 0);
        let cases: [(&str, &[Access], bool); 3] = [
            ("one read, before the release", &[at(0, 0, 0)], false),
            (
                "read again after the release",
                &[at(0, 0, 0), after_release],
                true,
            ),
            // Not kept: merging the two would stamp the earlier read's bytes
            // with the later read's order, a false report; this may miss one.
            (
                "a later read of fewer bytes leaves the earlier",
                &[at(0, 0, 0), half],
                false,
            ),
        ];
        for (name, reads, races) in cases {
            let mut shadow = Shadow::default();
            for r in reads {
                shadow.read(&Now {
                    access: *r,
                    knows: &none,
                });
            }
            let got = shadow.write(&Now {
                access: writer,
                knows: &from_thread,
            });
            assert_eq!(got.is_some(), races, "{name}");
        }
    }

    /// Steps of several ranks: a rank's own earlier steps come first; another
    /// rank's only through what an acquire took over (the steps before the
    /// one its release was made in); nothing else orders them. Reads kept
    /// from earlier steps of the reader's rank give way to its later ones.
    #[test]
    fn ranks_and_steps_table() {
        let none = Knowledge::default();
        let from_rank_1 = |step: u32| Knowledge {
            ranks: BTreeMap::from([(1, step)]),
            ..Knowledge::default()
        };
        let (in_step_1, in_step_2) = (from_rank_1(1), from_rank_1(2));
        let cases: [(&str, Access, Access, &Knowledge, bool); 7] = [
            (
                "another rank, same step",
                on(0, 0, 1, 1),
                on(9, 5, 0, 1),
                &none,
                true,
            ),
            (
                "another rank, earlier step",
                on(0, 0, 1, 0),
                on(9, 5, 0, 1),
                &none,
                true,
            ),
            (
                "own rank, earlier step",
                on(0, 0, 0, 0),
                on(9, 5, 0, 1),
                &none,
                false,
            ),
            (
                "own rank, same step",
                on(0, 0, 0, 1),
                on(9, 5, 0, 1),
                &none,
                true,
            ),
            (
                "flag of a later step",
                on(0, 0, 1, 1),
                on(9, 5, 0, 2),
                &in_step_2,
                false,
            ),
            (
                "flag of the same step",
                on(0, 0, 1, 1),
                on(9, 5, 0, 1),
                &in_step_1,
                true,
            ),
            (
                "flag of another rank",
                on(0, 0, 2, 0),
                on(9, 5, 0, 2),
                &in_step_2,
                true,
            ),
        ];
        for (name, first, second, knows, races) in cases {
            let mut shadow = Shadow::default();
            shadow.write(&Now {
                access: first,
                knows: &none,
            });
            let got = shadow.read(&Now {
                access: second,
                knows,
            });
            assert_eq!(got.is_some(), races, "{name}");
        }
        // Four readers of rank 0 in step 0, then rank 1's in step 1 unordered
        // with them, then rank 0's writer in step 2: the read of rank 1 races.
        let mut shadow = Shadow::default();
        for t in 0..4 {
            shadow.read(&Now {
                access: on(t, t, 0, 0),
                knows: &none,
            });
        }
        shadow.read(&Now {
            access: on(0, 0, 0, 1),
            knows: &none,
        });
        shadow.read(&Now {
            access: on(20, 20, 1, 1),
            knows: &none,
        });
        let got = shadow.write(&Now {
            access: on(30, 30, 0, 2),
            knows: &none,
        });
        assert!(got.is_some_and(|(a, _)| a.rank == 1), "{got:?}");
    }
}
