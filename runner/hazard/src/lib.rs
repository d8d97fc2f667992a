//! `gpu-hazard`: what the two checkers (`wgsl-sim` for WGSL, `ptx-sim` for
//! the PTX that NVRTC emits from CUDA C) and the core share, below all of
//! them: it knows no files and no language, and builds for
//! `wasm32-unknown-unknown`.
//!
//! - [`Kind`]: the kinds of finding, one typed enum, carried on every
//!   diagnostic as a field, so that nothing recognises a finding from its
//!   message's words;
//! - [`Hazards`]: a run's findings, one per kind and line, capped;
//! - [`Rng`]: the one seeded generator (SplitMix64), behind the checkers'
//!   schedules and the specs' `random SEED` inputs.

mod kind;
mod report;
mod rng;

pub use kind::Kind;
pub use report::{Hazard, Hazards};
pub use rng::Rng;
