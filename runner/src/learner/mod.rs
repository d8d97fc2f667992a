//! The learner's loop: edit a copy of a skeleton, save, and be told what is wrong.
//!
//! - [`workspace`]: `.learner/`, the learner's own copy of every skeleton;
//! - [`input`]: reading that copy, refusing empty or binary files with advice;
//! - [`check`]: the teaching size, then the stress sizes, judged in words
//!   ([`check::CheckReport`], also the `--json` shape);
//! - [`render`]: the report as coloured text;
//! - [`progress`]: which puzzles pass, and how many tips were shown;
//! - [`order`]: the order puzzles are met in, and the next unsolved one.

pub mod check;
pub mod input;
pub mod order;
pub mod progress;
pub mod render;
pub mod workspace;

pub use check::{CheckReport, Verdict, check};
pub use progress::{Mark, Progress, ProgressFile};
pub use workspace::Workspace;
