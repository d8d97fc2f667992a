//! Running a kernel: the contract every backend keeps.
//!
//! - [`backend`]: the [`backend::Backend`] trait, the [`backend::Job`] it is
//!   given, and how it fails;
//! - [`outcome`]: what it returns, and the device layout of buffers (poison,
//!   guard bands) that every backend shares;
//! - [`timing`]: samples from a device timer, summarised.

pub mod backend;
pub mod outcome;
pub mod timing;
