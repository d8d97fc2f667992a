//! Work done in a child process of the engine, so that nothing a kernel
//! does (a fault, an endless loop, a driver left in a bad state) reaches the
//! caller or the next run.
//!
//! - [`job`]: the typed jobs a child can be given;
//! - [`process`]: starting the child, sending the job, the timeout, the reply.
//!
//! What a child does with its job is `crate::worker`'s.

pub mod job;
pub mod process;
