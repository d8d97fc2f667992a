//! `puzzle-core`: what a GPU puzzle is and whether a run of it passed.
//!
//! Text in, values out: this crate reads no files, opens no GPU, spawns no
//! process and draws on no terminal, so the same code judges a kernel in the
//! CLI, the chapter tests, the book build and, compiled to WebAssembly, the
//! published book's playground. The data flows one way, and the modules
//! follow it:
//!
//! ```text
//! chapter.md ─chapter─▶ spec + kernel ─backend_contract─▶ outcome ─judge─▶ report ─assess─▶ verdict in words
//!   source: text that knows its lines    (Backend trait; wgsl: the CPU checker)
//! ```
//!
//! - [`source`]: text whose lines know their file, located messages, `{{#include}}`;
//! - [`spec`]: a ```puzzle block from YAML to resolved sizes and data, and the CPU references;
//! - [`kernel`]: the skeleton cut from the solution, and a case's constants written into it;
//! - [`chapter`]: the blocks of a chapter, its puzzles, the catalogue, `SUMMARY.md`;
//! - [`backend_contract`]: the contract of a backend: its job, its outcome, its timings;
//! - [`judge`]: outputs against expected values, and the report every front end shows;
//! - [`draw`]: pictures of a traced run (who touched which element, and when);
//! - [`quantity`]: counts and sizes in words (`16,777,216`, `1.5 KiB`);
//! - [`assess`]: the one path from kernel to report, the teaching and stress sizes, the learner's verdict;
//! - [`wgsl`]: the WGSL front end, and the CPU checker (the `wgsl-sim` interpreter) as a backend.

pub mod assess;
pub mod backend_contract;
pub mod chapter;
pub mod draw;
pub mod judge;
pub mod kernel;
pub mod lang;
pub mod quantity;
pub mod source;
pub mod spec;
pub mod wgsl;

#[cfg(test)]
mod test_book;
