//! A run, above the single thread: memory laid out, the launches one after
//! another, each launch's blocks a cluster (or each step's ranks) at a time,
//! and the threads of each run together in a seeded order between the
//! points where they wait for each other; and what is reported when they
//! cannot go on.
//!
//! - `schedule`: a run, its launches in order ([`crate::run`](fn@crate::run));
//! - `cohort`: threads that run together (a block, a cluster, a step's
//!   ranks): a launch laid out, barriers, warp operations resolved,
//!   deadlocks;
//! - `ranks`: a run of several ranks (GPUs), each step's ranks at once;
//! - `resident`: how many blocks a GPU runs at once (those that may spin on
//!   each other);
//! - `timeout`: where the threads were when the time ran out.

pub(crate) mod cohort;
pub(crate) mod ranks;
pub(crate) mod resident;
pub(crate) mod schedule;
pub(crate) mod timeout;
