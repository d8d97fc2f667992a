//! The contract every backend keeps: what running a kernel is given and returns.
//!
//! - [`backend`]: the [`backend::Backend`] trait, the [`backend::Job`] it is
//!   given, and how it fails;
//! - [`outcome`]: what it returns, and the device layout of buffers (poison,
//!   guard bands) that every backend shares;
//! - [`timing`]: samples from a device timer, summarised;
//! - [`access_map`]: who touched which element, from a traced run on the CPU checker.

pub mod access_map;
pub mod backend;
pub mod outcome;
pub mod timing;
