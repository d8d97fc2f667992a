//! The book as the engine finds it on disk. A facade: `load`, its one file,
//! is private to the crate, and what other crates use of it is re-exported
//! here: the book's folder, its chapters and their includes, read into the
//! core's catalogue ([`puzzle_core::chapter::book::Book`]) by [`load`], or
//! by [`load_with`] through a caller's [`BookFiles`]; [`discover`], the book
//! a folder is in (or a [`DiscoverError`]); [`read_summary`], `SUMMARY.md`'s
//! chapters in order.
//!
//! (The checks that the book's parts agree, and that no chapter uses an
//! idea before the chapter that teaches it, run in no command: they live
//! with the tests, `runner/engine/tests/content/`.)

pub(crate) mod load;

pub use load::{BookFiles, DiscoverError, discover, load, load_with, read_summary};
