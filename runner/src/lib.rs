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
//! - [`book`]: the book on disk, and checks that its parts agree;
//! - [`backend`]: wgpu and CUDA, opened by kind (the CPU checker comes from the core);
//! - [`child`]: jobs run in a child process, killed when they hang;
//! - [`run`]: the [`run::runner::Runner`], through which every run goes, and the result cache;
//! - [`perf`]: timings that mean something: ceilings, benchmarks, rooflines, recordings;
//! - [`learner`]: the learner's workspace, progress and check;
//! - [`worker`]: what a child process does;
//! - [`atomic_file`]: files replaced whole, never half-written.
//!
//! The `runner` command line (`runner/cli/`) is a thin layer over all this.

pub mod atomic_file;
pub mod backend;
pub mod book;
pub mod child;
pub mod learner;
pub mod perf;
pub mod run;
pub mod worker;
