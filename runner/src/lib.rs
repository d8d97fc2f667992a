//! GPU Puzzles' engine.
//!
//! The data flows one way, and the modules follow it:
//!
//! ```text
//! chapter.md ─extract─▶ spec + kernel ─backend─▶ outcome ─verify─▶ report
//!             include     (book)      wgpu/cuda/sim          (page, CLI, tests)
//! ```
//!
//! - [`extract`] finds puzzle and kernel blocks; [`include`] expands
//!   `{{#include}}`; [`book`] gathers them into [`book::Puzzle`]s.
//! - [`spec`] parses and resolves a puzzle's YAML ([`expr`] evaluates its sizes,
//!   [`data`] builds buffer contents).
//! - [`kernel`] derives the skeleton from the solution; [`source`] maps every
//!   line back to its file for diagnostics ([`diag`]).
//! - [`backend`] compiles and runs (`backend::sim` hands WGSL to the
//!   `wgsl-sim` crate, which interprets it on the CPU, checks for races,
//!   out-of-bounds indices and divergent barriers, and counts global-memory
//!   accesses);
//!   [`verify`] judges; [`timing`] summarises; [`report`] is what users see;
//!   [`check`] ties a run together; [`reference`] computes expected outputs
//!   at any size (stress runs); [`record`] keeps GPU results in committed
//!   files for builds without that GPU; [`cache`] lets book builds skip runs
//!   whose inputs have not changed.
//! - Performance: [`calibrate`] measures a device's ceilings, [`bench`] times
//!   a puzzle at any size, [`roofline`] places a time under the ceilings, and
//!   [`chart`] draws the roofline as SVG.
//! - [`learner`] is the learner's loop on top of all that: a workspace of
//!   their own, `runner check`/`watch`/`hint`/`progress`; [`summary`] reads
//!   `SUMMARY.md` (reading order); [`content`] checks the book for drift.

pub mod atomic_file;
pub mod backend;
pub mod baseline;
pub mod bench;
pub mod book;
pub mod cache;
pub mod calibrate;
pub mod chart;
pub mod check;
pub mod content;
pub mod data;
pub mod diag;
pub mod expr;
pub mod extract;
pub mod include;
pub mod kernel;
pub mod kernel_constants;
pub mod learner;
pub mod record;
pub mod reference;
pub mod report;
pub mod roofline;
pub mod source;
pub mod spec;
pub mod summary;
pub mod timing;
pub mod verify;

pub use backend::{BackendKind, DeviceInfo};
pub use book::{Book, Puzzle};
pub use check::{Runner, Settings};
pub use kernel::{Lang, Variant};
pub use report::{RunReport, Status};
