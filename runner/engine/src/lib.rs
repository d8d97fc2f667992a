//! `runner`, GPU Puzzles' engine: the core's puzzles run for real, on this
//! machine's GPUs and files.
//!
//! What a puzzle is and whether a run passed is decided by the core crate
//! (`puzzle-core`, beside this one in `runner/core`), which reads no files
//! and opens no device. This crate adds everything that does:
//!
//! ```text
//! book ─▶ run (Runner: backends, cache) ─▶ backend (wgpu, cuda; child processes) ─▶ core's report
//!                       │                                                              │
//!                       └──▶ perf (bench, calibrate, roofline, record)   learner (workspace, progress) ◀┘
//! ```
//!
//! # The boundary
//!
//! Other crates (the command line in `runner/cli/src/`, the preprocessor, the
//! tests and examples) see five facades and two functions, nothing else;
//! every other module is private to the crate, so the compiler keeps callers
//! out. A facade is a folder's `mod.rs` that re-exports, item by item, what
//! crosses; `perf` keeps three surfaces whole (`chart`, `roofline`,
//! `record`). `docs/ARCHITECTURE.md` ("API boundaries") lists them, and the
//! architecture test fails on a `pub mod` it does not list.
//!
//! - [`book`]: the book on disk;
//! - [`backend`]: wgpu and CUDA, opened by kind (the CPU checker comes from the core);
//! - [`run`]: the [`run::Runner`], through which every run goes, and the result cache;
//! - [`perf`]: timings that mean something: ceilings, benchmarks, rooflines, recordings;
//! - [`learner`]: the learner's workspace, progress and check;
//! - [`serve_if_child`]: the first call of every executable that runs the
//!   engine (`worker`: what a child process does; `child`: jobs run in a
//!   child process, killed when they hang);
//! - [`write_atomically`]: a file replaced whole, never half-written
//!   (`atomic_file`).
//!
//! The `runner` command line (`runner/cli/src/`) is a thin layer over all this.

pub(crate) mod atomic_file;
pub mod backend;
pub mod book;
pub(crate) mod child;
pub mod learner;
pub mod perf;
pub mod run;
pub(crate) mod worker;

pub use atomic_file::write as write_atomically;
pub use worker::serve_if_child;
