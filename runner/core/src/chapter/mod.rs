//! Chapters: where the puzzles are declared.
//!
//! - [`extract`]: the ```puzzle, kernel and ```roofline blocks of a
//!   chapter, with their byte ranges (the preprocessor splices by them);
//! - [`puzzle`]: one chapter's puzzles, specs paired with their kernels;
//! - [`book`]: the catalogue of every chapter's puzzles;
//! - [`bundle`]: one puzzle packed with the files it includes, for the browser;
//! - [`summary`]: `SUMMARY.md`, the order a reader meets the chapters in.

pub mod book;
pub mod bundle;
pub mod extract;
pub mod puzzle;
pub mod summary;
