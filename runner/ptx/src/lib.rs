//! `ptx-sim`: the PTX that NVRTC emits, interpreted on the CPU, with the
//! checks no GPU makes.
//!
//! The caller compiles CUDA C with NVRTC (`--generate-line-info`, so the
//! PTX carries `.loc` lines of the CUDA source), parses the text with
//! [`Module::parse`], then hands [`run`] the launches and the bytes of each
//! buffer. What comes back is every buffer's bytes after the launches, the
//! hazards seen on the way (data races, out-of-bounds addresses, reads of
//! shared memory nobody wrote, barriers part of a block never reaches, warp
//! operations whose mask disagrees with the lanes that reach them,
//! deadlocks), each at a line of the CUDA source, and how often each thread
//! read and wrote global memory.
//!
//! Like `wgsl-sim`, the crate knows no files and no puzzles; messages that
//! name a second place get its line through the caller's [`LineMap`].
//!
//! The API is what this file re-exports, no more: [`Module::parse`] and
//! [`run`]; what a run is given ([`Launch`], its [`Param`]s and
//! [`TensorMap`]s, [`Buffer`], [`Config`] with its [`Limits`] and [`Clock`],
//! a [`LineMap`]) and what it returns ([`Run`]: [`Hazard`]s of a [`Kind`],
//! the [`AccessReport`], the [`AccessTrace`]; or an [`Error`]). The modules
//! are private to the crate:
//!
//! - `launch`: what a run is given and returns;
//! - `parse`: PTX text to a [`Module`] of kernels and instructions;
//! - `parse_inst`: one instruction decoded; `parse_call`: printf's call;
//! - `thread`: a thread's state; `support`: which instructions run;
//! - `exec`: one thread's interpreter; `exec_mem`: loads, stores and
//!   atomics, checked; `exec_async`: mbarrier instructions, `cp.async`
//!   and the TMA's bulk copies; `mbarrier`: an mbarrier object and the
//!   bulk copies counted on it; `in_flight`: the shared words copies in
//!   flight will write; `proxy`: generic writes a wgmma may read only
//!   after a proxy fence;
//! - `printf`: CUDA's `printf`, formatted as the device formats it;
//! - `value`: integer and float arithmetic as PTX types say;
//! - `warp`: shuffles, votes and warp syncs; `matrix`: ldmatrix, mma, WMMA;
//! - `memory`: global, shared, local and parameter memory, by address;
//! - `schedule`: a run, its launches one after another; `ranks`: a run
//!   of several ranks (GPUs), each step's ranks at once;
//!   `cohort`: threads that run together (a block, a cluster), barriers;
//!   `timeout`: where the threads were when the time ran out;
//!   `resident`: how many blocks a GPU runs at once (those that may
//!   spin on each other);
//! - `hazard`: PTX's order (happens-before, morally strong) for the race
//!   rule's shadow, which is `gpu-hazard`'s, and the reports;
//!   `order`: what releases published, and the acquires that take it over;
//! - `access`: the threads that global-memory counts name (the counts are
//!   `gpu-hazard`'s);
//! - `trace`: who touched which element, for the diagrams (`gpu-hazard`'s types).

mod access;
mod cohort;
mod exec;
mod exec_async;
mod exec_atomic;
mod exec_mem;
mod hazard;
mod in_flight;
mod launch;
mod matrix;
mod mbarrier;
mod memory;
mod named;
mod order;
mod parse;
mod parse_call;
mod parse_inst;
mod printf;
mod proxy;
mod ranks;
mod resident;
mod schedule;
mod support;
mod thread;
mod timeout;
mod trace;
mod value;
mod warp;

#[cfg(test)]
mod ranks_tests;
#[cfg(test)]
mod run_tests;

pub use access::{AccessReport, Site, Tally, Thread};
pub use hazard::{Hazard, Kind, LineMap, SameLines};
pub use launch::{
    Buffer, Clock, Config, DecodeError, Error, Launch, Limits, MAX_SHARED_BYTES, MEMORY_BUDGET,
    Param, Run, TensorMap, system_clock,
};
pub use parse::{Kernel, Module};
pub use schedule::run;
pub use trace::AccessTrace;
