//! `gpu-hazard`: what the two checkers (`wgsl-sim` for WGSL, `ptx-sim` for
//! the PTX that NVRTC emits from CUDA C) and the core share, below all of
//! them: it knows no files and no language, and builds for
//! `wasm32-unknown-unknown`.
//!
//! The API is what this file re-exports; the modules are private:
//!
//! - [`Kind`]: the kinds of finding, one typed enum, carried on every
//!   diagnostic as a field, so that nothing recognises a finding from its
//!   message's words;
//! - [`Hazards`]: a run's findings, one per kind and line, capped; and
//!   [`Findings`], what a run that ended found, as both checkers return it;
//! - [`Shadow`]: the race rule's memory of each element, generic over what
//!   orders two accesses in each language ([`Order`]; WGSL's is [`Epochs`]);
//! - [`AccessReport`], [`Counter`]: each thread's global loads and stores,
//!   for the puzzles' bounds;
//! - [`Tracer`], [`AccessTrace`]: who touched which element, for the access
//!   diagrams;
//! - [`Limits`], [`Clock`], [`Deadline`]: the time and memory a run may take;
//! - [`Rng`]: the one seeded generator (SplitMix64), behind the checkers'
//!   schedules and the specs' `random SEED` inputs.

mod counts;
mod findings;
mod kind;
mod limits;
mod report;
mod rng;
mod shadow;
mod trace;

pub use counts::{AccessReport, Counter, Site, Tally};
pub use findings::Findings;
pub use kind::Kind;
pub use limits::{Clock, Deadline, Limits, MEMORY_BUDGET, system_clock};
pub use report::{Hazard, Hazards};
pub use rng::Rng;
pub use shadow::{Conflict, Epochs, Order, Shadow};
pub use trace::{AccessTrace, LIMIT as TRACE_LIMIT, Touch, Tracer, VariableTrace};
