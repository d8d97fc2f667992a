//! Recorded GPU results: what runs on real GPUs produced, committed to the
//! repository (`results/<device>.json`), so a book built anywhere can show
//! them, labelled with their device and date.
//!
//! - [`schema`]: what a recording holds;
//! - [`store`]: reading, looking up and writing recordings;
//! - [`workflow`]: `runner record`, which makes them on a GPU machine.

pub mod schema;
pub mod store;
pub mod workflow;

/// The folder of recorded results, relative to the book's root.
pub const RESULTS_DIR: &str = "results";
