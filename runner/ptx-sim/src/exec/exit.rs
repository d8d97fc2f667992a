//! A block of a cluster that exits takes its shared memory with it. Every
//! access another block of the cluster makes to that memory must come
//! before the exit (a cluster barrier between them): one made after it, or
//! one that nothing orders before it, reads or writes memory the block no
//! longer owns, and is reported as a race with the exit.

use crate::exec::world::{BlockMemory, World, shared_name};
use crate::hazard::{Access, Kind, Knowledge, Now, Strength};
use crate::thread::{ThreadState, describe};
use gpu_hazard::Order;

/// Why a block's shared memory may not be reached once it exits.
const EXITED: &str = "a block's shared memory goes when its last thread exits, and a block of \
     the cluster that reaches it after that reads or writes whatever the SM has put there since; \
     have every block wait for the others (cluster.sync()) before it exits";

impl World<'_> {
    /// An access by `t` to the shared memory of `mem`'s block, which has exited.
    #[cold]
    pub fn after_exit(
        &mut self,
        t: &ThreadState,
        line: usize,
        write: bool,
        mem: &BlockMemory,
        off: u64,
        width: usize,
    ) {
        let mapped = self.lines.line(line);
        if self.hazards.known(Kind::Race, mapped) {
            return;
        }
        let message = format!(
            "{} {} {} in the shared memory of {}, which has exited: {EXITED}",
            describe(&t.thread),
            if write { "writes" } else { "reads" },
            shared_name(mem, off, width),
            self.block_name(mem.block_index),
        );
        self.hazards.add(Kind::Race, line, mapped, message);
    }

    /// Every thread of `mem`'s block (`threads`) has finished: its shared
    /// memory goes. An access of another block that nothing orders before
    /// the end of every one of these threads races with the exit.
    pub fn block_exits(&mut self, threads: &[ThreadState], mem: &mut BlockMemory) {
        mem.exited = true;
        let Some(first) = threads.first() else {
            return;
        };
        let mut knows = Knowledge::default();
        for t in threads {
            knows.merge(&t.knows);
        }
        // The exit as an access of the block's own, after all of its
        // barriers: its threads' accesses come before it, another block's
        // only where what the threads knew orders them.
        let exit = Now {
            access: Access {
                thread: u32::MAX,
                block: mem.block_index,
                epoch: u32::MAX,
                warp: u32::MAX,
                warp_epoch: 0,
                released: 0,
                cluster: first.cluster_id,
                bytes: 0xF,
                rank: first.rank as u8,
                step: self.step,
                strength: Strength::Plain,
                line: 0,
            },
            knows: &knows,
        };
        let unordered = mem
            .shared
            .shadow
            .iter()
            .enumerate()
            .find_map(|(word, shadow)| {
                shadow
                    .accesses()
                    .find(|a| a.block != mem.block_index && !exit.settles(a))
                    .map(|a| (word, *a))
            });
        let Some((word, a)) = unordered else {
            return;
        };
        let line = a.line as usize;
        let mapped = self.lines.line(line);
        if self.hazards.known(Kind::Race, mapped) {
            return;
        }
        let message = format!(
            "{} reaches {} in the shared memory of {} here, and nothing orders that before {} \
             exits: {EXITED}",
            self.thread_name(a.thread),
            shared_name(mem, word as u64 * 4, 4),
            self.block_name(mem.block_index),
            self.block_name(mem.block_index),
        );
        self.hazards.add(Kind::Race, line, mapped, message);
    }

    /// Block `linear` of the launch, as a message names it.
    fn block_name(&self, linear: u32) -> String {
        let [x, y] = [self.grid[0].max(1), self.grid[1].max(1)];
        format!(
            "block ({}, {}, {})",
            linear % x,
            (linear / x) % y,
            linear / (x * y)
        )
    }
}
