//! `wgsl-sim`: WGSL compute shaders on the CPU, by interpreting naga's IR,
//! with checks no GPU makes.
//!
//! The caller parses and validates the module, then hands [`run`] the
//! launches and the words of each bound buffer. What comes back is every
//! buffer's words after the launches, the hazards seen on the way (data
//! races, out-of-bounds indices, reads of workgroup memory nobody wrote,
//! barriers or subgroup operations not every invocation reaches), each at a
//! naga span, and how often each invocation read and wrote storage buffers.
//!
//! The crate knows nothing about files: messages that name a second place
//! ("… and invocation 3 writes it at line 12") get that line from the
//! caller's [`LineMap`]; [`TextLines`] is the plain one, over the WGSL text.
//!
//! - `launch`: what a run is given and returns;
//! - `run`: the launches in order over the bound buffers ([`run`]);
//! - `value`: scalars, vectors, operators and builtins;
//! - `pointer`: pointers into memory;
//! - `memory`: variables as leaves, type layouts;
//! - `program`: the module prepared for running;
//! - `shared`: what a dispatch's invocations share: memory, checks, the clock;
//! - `exec`: one invocation's interpreter, resumable at barriers;
//! - `schedule`: workgroups, subgroups and the seeded order of invocations;
//! - `hazard`: the race rule and the reports;
//! - `access`: counts of global-memory reads and writes.

mod access;
mod exec;
mod hazard;
mod launch;
mod memory;
mod pointer;
mod program;
mod run;
mod schedule;
mod shared;
mod trace;
mod value;

#[cfg(test)]
mod run_tests;

pub use access::{AccessReport, Site, Tally, Thread};
pub use hazard::{Hazard, Kind, LineMap, TextLines};
pub use launch::{
    Binding, Clock, Config, Error, Launch, Limits, MAX_WORKGROUP_BYTES, Run, system_clock,
};
pub use run::run;
