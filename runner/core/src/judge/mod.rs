//! Judging a run: what every front end (CLI, tests, book, browser) shows.
//!
//! - [`verify`]: outputs against expected values, element by element
//!   (unwritten, wrong, written out of bounds), in sentences a learner can act on;
//! - [`finding`]: which kinds of mistake ([`crate::spec::finding::Finding`]) a report shows;
//! - [`report`]: one run's [`report::RunReport`], built once from a backend's outcome;
//! - [`abridge`]: a check cut to what a page shows (recordings, the book's cache);
//! - [`diagram`]: who touched which element, drawn from a traced run;
//!   [`intervals`]: a block's shared memory one barrier interval at a time;
//! - [`format`]: numbers as the pages and the terminal print them.

pub mod abridge;
pub mod diagram;
pub mod finding;
pub mod format;
pub mod intervals;
pub mod report;
pub mod verify;
