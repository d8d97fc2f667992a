//! Work done in child processes of the engine, so that nothing a kernel
//! does (a fault, an endless loop, a driver left in a bad state) reaches the
//! caller or the next run.
//!
//! - [`job`]: the typed jobs a child can be given, and its replies;
//! - [`wire`]: how they travel: JSON headers, binary attachments;
//! - [`process`]: starting children, deadlines per launch, replacing the dead.
//!
//! What a child does with its job is `crate::worker`'s.

pub(crate) mod job;
pub(crate) mod process;
pub(crate) mod wire;
