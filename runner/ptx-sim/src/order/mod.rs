//! What orders the accesses of different threads beyond their block's
//! barriers and their warp's syncs, as PTX's memory model says; the rule
//! that judges two accesses by that order is [`crate::hazard`]'s.
//!
//! - `release`: releases and acquires, fence patterns and `fence.sc`'s
//!   order, each with its scope, rank, block and cluster;
//! - `named`: named barriers with a thread count;
//! - `proxy`: generic writes to shared memory that a wgmma (the async
//!   proxy) may read only after the writer's `fence.proxy.async`.

pub(crate) mod named;
pub(crate) mod proxy;
pub(crate) mod release;
