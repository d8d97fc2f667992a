//! The book as the engine finds it on disk.
//!
//! - [`load`]: the book's folder, its chapters and their includes, read into
//!   the core's catalogue ([`puzzle_core::chapter::book::Book`]);
//! - [`content`]: checks that the book's parts agree (table of contents,
//!   hints, skeletons, kernel constants, kernel folders);
//! - [`concepts`]: no chapter uses an idea before the chapter that teaches it.

pub mod concepts;
pub mod content;
pub mod load;
