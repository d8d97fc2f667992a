//! A thread as the interpreter keeps it (registers, pc, its place in the
//! grid and among the ranks, its counts, what it knows of other threads'
//! accesses, its last poll of a flag) and why it stopped running; its words
//! in messages.

use crate::hazard::Knowledge;
use crate::memory::access::Thread;
use crate::parse::inst::Scope;
use std::sync::Arc;

/// Why a thread stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Ran its slice: it may go on.
    Slice,
    /// At a block barrier (`bar.sync id[, count]`).
    Barrier {
        id: u32,
        count: Option<u32>,
    },
    /// At a warp operation over the lanes of `mask`.
    Warp {
        mask: u32,
    },
    /// Waiting on an mbarrier phase that has not completed.
    Wait,
    /// Polled a flag in global memory and found it as it was at its last
    /// poll, with nothing else changed: it may go on once memory changes
    /// (only in runs of several ranks, see `ThreadState::polled`).
    Spin,
    /// At a cluster barrier.
    Cluster,
    Done,
}

/// One thread. Its default is a thread before its first instruction, with
/// no registers, no accesses and nothing known of any other thread: what
/// a launch starts from, with its place in the grid filled in.
#[derive(Debug, Clone, Default)]
pub struct ThreadState {
    pub regs: Vec<u64>,
    pub pc: usize,
    pub local: Vec<u8>,
    pub tid: [u32; 3],
    /// Within the block: `tid.x + tid.y·ntid.x + …`.
    pub linear: u32,
    /// Within the launch: unique across blocks (in a run of several ranks,
    /// unique across the whole run).
    pub index: u32,
    /// The GPU it runs on (0 in a run of one).
    pub rank: u32,
    /// Its block for the race rule: the block's linear index in its launch
    /// (in a run of several ranks, unique across the whole run).
    pub block_id: u32,
    /// Its cluster for scopes: unique in its launch (its block where
    /// blocks have no clusters).
    pub cluster_id: u32,
    pub thread: Thread,
    pub reads: u32,
    pub writes: u32,
    pub epoch: u32,
    pub warp_epoch: u32,
    pub released: u32,
    pub knows: Arc<Knowledge>,
    /// The releasing fences it has passed: every strong write after them
    /// releases what the thread had done and known at the last of them (the
    /// ISA's release pattern; see `order::release`).
    pub fenced: Option<Fenced>,
    /// Strong reads (address, scope) since its last acquiring fence, which
    /// that fence turns into acquires, and the line of the last of them.
    pub strong_reads: Vec<(u64, Scope)>,
    pub unfenced_read: Option<u32>,
    /// Its last poll of global memory: (pc, address, value, a digest of its
    /// registers and local memory).
    pub last_poll: Option<(usize, u64, u64, u64)>,
    pub stop: Option<Stop>,
    /// The shared memory its warpgroup's `wgmma`s read, held by the
    /// warpgroup's first thread (see `matrix::retire`).
    pub wgmma_reads: WgmmaReads,
    /// Its `cp.async` copies not yet landed (see `exec::asynchronous::cp_async`).
    pub copies: AsyncCopies,
    /// The `fence.proxy.async`s it has made (see [`crate::order::proxy`]).
    pub proxy_fences: u32,
}

/// One `cp.async` in flight: the bytes it read from global memory when
/// issued (4, 8 or 16, the instruction's sizes), for the shared address
/// `dst`, issued at `.loc` line `line`.
#[derive(Debug, Clone)]
pub struct AsyncCopy {
    pub dst: u64,
    pub bytes: [u8; 16],
    pub len: u8,
    pub line: usize,
}

impl AsyncCopy {
    pub fn bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

/// A thread's `cp.async` copies in flight: they land in shared memory when
/// their group is waited on (`cp.async.wait_group`, `wait_all`) or at the
/// thread's `cp.async.mbarrier.arrive`, never when issued.
#[derive(Debug, Default, Clone)]
pub struct AsyncCopies {
    /// Since the last `cp.async.commit_group`.
    pub open: Vec<AsyncCopy>,
    /// Committed groups, oldest first.
    pub committed: std::collections::VecDeque<Vec<AsyncCopy>>,
}

/// Shared memory a warpgroup's `wgmma`s read: (address, bytes, line). The
/// tensor cores may read an operand at any time until `wgmma.wait_group`
/// retires its group, so the reads stay pending until then.
#[derive(Debug, Default, Clone)]
pub struct WgmmaReads {
    /// Since the last `wgmma.commit_group`.
    pub open: Vec<(u64, u32, usize)>,
    /// Committed groups, oldest first.
    pub committed: std::collections::VecDeque<Vec<(u64, u32, usize)>>,
}

impl ThreadState {
    /// This thread as a release would publish it now.
    pub fn mark(&self) -> Mark {
        Mark {
            released: self.released + 1,
            epoch: self.epoch,
            knows: Arc::clone(&self.knows),
        }
    }

    /// Publishes what this thread knows, and that its accesses so far come
    /// before whoever acquires `gathering` (a release: an mbarrier arrival,
    /// a named barrier's), as a thread of block `block`.
    pub fn release_into(&mut self, gathering: &mut Knowledge, block: u32) {
        gathering.merge(&self.knows);
        let r = gathering.threads.entry(self.index).or_insert(0);
        *r = (*r).max(self.released + 1);
        let e = gathering.blocks.entry(block).or_insert(0);
        *e = (*e).max(self.epoch);
        self.released += 1;
    }

    pub fn lane(&self) -> u32 {
        self.linear % 32
    }
    pub fn warp(&self) -> u32 {
        self.linear / 32
    }

    /// A load of `value` at global `addr` by the instruction at `pc` that
    /// may be a poll (acquire, relaxed or volatile): true where the thread
    /// polled there before and is just as it was then (registers and local
    /// memory), so it will go round again forever unless memory changes.
    pub fn polled(&mut self, pc: usize, addr: u64, value: u64) -> bool {
        // FNV-1a over the registers and local bytes.
        let mut h: u64 = 0xCBF2_9CE4_8422_2325;
        let bytes = self.regs.iter().flat_map(|r| r.to_le_bytes());
        for b in bytes.chain(self.local.iter().copied()) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3);
        }
        let poll = Some((pc, addr, value, h));
        let again = self.last_poll == poll;
        self.last_poll = poll;
        again
    }
}

/// Where a launch's threads and blocks start in a run of several ranks'
/// numbering, and its geometry: a thread's index back to its words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin {
    pub thread: u32,
    pub block: u32,
    pub rank: u32,
    pub grid: [u32; 3],
    pub block_dim: [u32; 3],
}

/// The thread whose index (in its launch, or in a run of several ranks
/// whose launches start at `origins`) is `index`, in a launch of `grid`
/// blocks of `block_dim` where there are no origins.
pub fn numbered(index: u32, origins: &[Origin], grid: [u32; 3], block_dim: [u32; 3]) -> Thread {
    let from = origins.iter().rev().find(|o| o.thread <= index);
    let (index, g, d) = match from {
        Some(o) => (index - o.thread, o.grid, o.block_dim),
        None => (index, grid, block_dim),
    };
    let per = d.iter().product::<u32>().max(1);
    let (block, local) = (index / per, index % per);
    Thread {
        local: [local % d[0], (local / d[0]) % d[1], local / (d[0] * d[1])],
        block: [block % g[0], (block / g[0]) % g[1], block / (g[0] * g[1])],
        rank: from.map(|o| o.rank),
        ..Default::default()
    }
}

/// Thread `t`'s place, for messages: "thread (3, 0, 0) of block (1, 0, 0)",
/// and "… on rank 1" in a run of several ranks.
pub fn describe(thread: &Thread) -> String {
    let [x, y, z] = thread.local;
    let [bx, by, bz] = thread.block;
    match thread.rank {
        None => format!("thread ({x}, {y}, {z}) of block ({bx}, {by}, {bz})"),
        Some(r) => format!("thread ({x}, {y}, {z}) of block ({bx}, {by}, {bz}) on rank {r}"),
    }
}

/// What a release publishes of its thread: its accesses up to a point
/// (those it made while its release count was below `released`), its
/// block's barrier epoch then, and what it had acquired by then.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    pub released: u32,
    pub epoch: u32,
    pub knows: Arc<Knowledge>,
}

/// The releasing fences a thread has passed: the widest scope among them,
/// and the thread as it was at the last (a write after an earlier, wider
/// fence and a later, narrower one is taken as released at the wider scope
/// from the later point: generous, never strict).
#[derive(Debug, Clone, PartialEq)]
pub struct Fenced {
    pub scope: Scope,
    pub mark: Mark,
}
