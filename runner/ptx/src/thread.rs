//! A thread as the interpreter keeps it (registers, pc, its place in the
//! grid, its counts, what it knows of other threads' accesses) and why it
//! stopped running; its words in messages.

use crate::access::Thread;
use crate::hazard::Knowledge;
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
    /// At a cluster barrier.
    Cluster,
    Done,
}

/// One thread.
#[derive(Debug, Clone)]
pub struct ThreadState {
    pub regs: Vec<u64>,
    pub pc: usize,
    pub local: Vec<u8>,
    pub tid: [u32; 3],
    /// Within the block: `tid.x + tid.y·ntid.x + …`.
    pub linear: u32,
    /// Within the launch: unique across blocks.
    pub index: u32,
    pub thread: Thread,
    pub reads: u32,
    pub writes: u32,
    pub epoch: u32,
    pub warp_epoch: u32,
    pub released: u32,
    pub knows: Arc<Knowledge>,
    /// A fence since its last atomic: the next atomic releases and acquires.
    pub fenced: bool,
    pub stop: Option<Stop>,
}

impl ThreadState {
    pub fn lane(&self) -> u32 {
        self.linear % 32
    }
    pub fn warp(&self) -> u32 {
        self.linear / 32
    }
}

/// Thread `t`'s place, for messages: "thread (3, 0, 0) of block (1, 0, 0)".
pub fn describe(thread: &Thread) -> String {
    let [x, y, z] = thread.local;
    let [bx, by, bz] = thread.block;
    format!("thread ({x}, {y}, {z}) of block ({bx}, {by}, {bz})")
}
