//! Judging a run: what every front end (CLI, tests, book, browser) shows.
//!
//! - [`verify`]: outputs against expected values, element by element
//!   (unwritten, wrong, written out of bounds), in sentences a learner can act on;
//! - [`detect`]: which kinds of mistake ([`crate::spec::finding::Finding`]) a report shows;
//! - [`report`]: one run's [`report::RunReport`], built once from a backend's outcome;
//! - [`abridge`]: a check cut to what a page shows (recordings, the book's cache);
//! - [`format`]: numbers as the pages and the terminal print them.
//!
//! The pictures of a traced run are drawn elsewhere ([`crate::draw`]): they
//! show a run, they do not judge it.

pub mod abridge;
pub mod detect;
pub mod format;
pub mod report;
pub mod verify;
