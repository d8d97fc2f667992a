//! `ptx-sim`: the PTX that NVRTC emits, interpreted on the CPU, with the
//! checks no GPU makes.
//!
//! The caller compiles CUDA C with NVRTC (`--generate-line-info`, so the
//! PTX carries `.loc` lines of the CUDA source), parses the text with
//! [`Module::parse`], then hands [`run`](fn@run) the launches and the bytes
//! of each buffer. What comes back is every buffer's bytes after the
//! launches, the hazards seen on the way (data races, out-of-bounds
//! addresses, reads of shared memory nobody wrote, barriers part of a block
//! never reaches, warp operations whose mask disagrees with the lanes that
//! reach them, deadlocks), each at a line of the CUDA source, and how often
//! each thread read and wrote global memory.
//!
//! Like `wgsl-sim`, the crate knows no files and no puzzles; messages that
//! name a second place get its line through the caller's [`LineMap`].
//!
//! The API is what this file re-exports, no more: [`Module::parse`] and
//! [`run`](fn@run); what a run is given ([`Launch`], its [`Param`]s and
//! [`TensorMap`]s, [`Buffer`], [`Config`] with its [`Limits`] and [`Clock`],
//! a [`LineMap`]) and what it returns ([`Run`]: [`Hazard`]s of a [`Kind`],
//! the [`AccessReport`], the [`AccessTrace`]; or an [`Error`]). The modules
//! are private to the crate, in the order a run goes through them:
//!
//! - `launch`: what a run is given and returns;
//! - `parse/`: PTX text to a [`Module`] of kernels and decoded
//!   instructions, and which of them run;
//! - `run/`: a run's launches, one cluster (or one step of several ranks)
//!   after another, the threads of each run together until they must wait,
//!   and what a deadlock or a timeout reports;
//! - `exec/`: one thread's instructions run: its interpreter, what a launch
//!   and a block share with their loads and stores, atomics, `cp.async` and
//!   the TMA's copies, warp and matrix operations, `printf`, arithmetic;
//! - `thread`: a thread's state, which `run/`, `exec/` and `order/` all take;
//! - `memory/`: memory by address, the mbarriers and copies in flight that
//!   live in shared memory, and the records of accesses (counts, trace);
//! - `order/`: what orders the accesses of different threads beyond their
//!   block's barriers: releases, acquires and fences, named barriers, proxy
//!   fences;
//! - `hazard`: PTX's order (happens-before, morally strong) for the race
//!   rule's shadow, which is `gpu-hazard`'s, and the reports; below every
//!   folder, since each of them speaks its words.
//!
//! Each folder's `mod.rs` says what its files do. Every module is
//! `pub(crate)`: each file is a module of its own, so that the
//! architecture test holds the folders to one direction (`order/` never
//! imports `exec/`, which imports it).

pub(crate) mod exec;
pub(crate) mod hazard;
pub(crate) mod launch;
pub(crate) mod memory;
pub(crate) mod order;
pub(crate) mod parse;
pub(crate) mod run;
pub(crate) mod thread;

#[cfg(test)]
mod ranks_tests;
#[cfg(test)]
mod run_tests;

pub use hazard::{Hazard, Kind, LineMap, SameLines};
pub use launch::{
    Buffer, Clock, Config, DecodeError, Error, Launch, Limits, MAX_SHARED_BYTES, MEMORY_BUDGET,
    Param, Run, TensorMap, system_clock,
};
pub use memory::access::{AccessReport, Site, Tally, Thread};
pub use memory::trace::AccessTrace;
pub use parse::module::{Kernel, Module};
pub use run::schedule::run;
