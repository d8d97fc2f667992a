//! Running puzzles in the engine. A facade: its files are private to the
//! crate.
//!
//! - `runner`: the [`Runner`]: backends opened once, every run through the
//!   core's one path;
//! - `cache`: results of book builds kept by everything that shapes them
//!   ([`ResultCache`]; [`engine_and_machine`]: what of this build and
//!   machine a cached result depends on);
//! - `memory_budget`: how much memory a run may take here.

pub(crate) mod cache;
pub(crate) mod memory_budget;
pub(crate) mod runner;

pub use cache::{ResultCache, engine_and_machine};
pub use runner::Runner;
