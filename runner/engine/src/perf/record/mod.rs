//! Recorded GPU results: what runs on real GPUs produced, committed to the
//! repository (`results/<device>.json`, under [`RESULTS_DIR`]), so a book
//! built anywhere can show them, labelled with their device and date. A
//! facade: its files are private to the crate.
//!
//! - `schema`: what a recording holds ([`Recording`] of [`Entry`]s and
//!   [`BenchEntry`]s, [`Awaiting`]; [`Recorded`]: one looked up; the
//!   [`hash`]es that say whether it is current);
//! - `store`: reading ([`load_all`], [`load_json_files`]), looking up
//!   ([`lookup`], [`lookup_bench`], [`find`], [`bench_date`]) and writing
//!   ([`save_ceilings`]) recordings;
//! - `workflow`: `runner record`, which makes them on a GPU machine
//!   ([`record()`], [`record_benches`], telling its [`Progress`]).

pub(crate) mod schema;
pub(crate) mod store;
pub(crate) mod workflow;

pub use schema::{Awaiting, BenchEntry, Entry, Recorded, Recording, file_stem, hash, spec_hash};
pub use store::{
    AWAITING_FILE, BenchUnusable, bench_date, find, load_all, load_json_files, lookup,
    lookup_bench, save_ceilings,
};
pub use workflow::{Progress, record, record_benches};

/// The folder of recorded results, relative to the book's root.
pub const RESULTS_DIR: &str = "results";
