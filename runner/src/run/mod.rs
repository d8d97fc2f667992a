//! Running puzzles in the engine.
//!
//! - [`runner`]: the [`runner::Runner`]: backends opened once, every run
//!   through the core's one path;
//! - [`cache`]: results of book builds kept by everything that shapes them;
//! - [`memory_budget`]: how much memory a run may take here.

pub mod cache;
pub mod memory_budget;
pub mod runner;
