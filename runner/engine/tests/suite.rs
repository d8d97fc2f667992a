//! The runner's integration tests, as one binary: each group is a file
//! beside this one, and `TEST_GROUPS=chapters,negative` runs some of them
//! (the GPU machine's recordings do).
//!
//! - `chapters`: every puzzle, per language, variant and backend;
//! - `negative`: wrong kernels and impossible launches the checks must reject;
//! - `litmus`: the memory model's litmus tests, each held to the ISA's verdict;
//! - `hostile`: careless and hostile input through the `runner` command;
//! - `learner`: the learner's loop (`check`, `hint`, `watch`, `bench --file` …);
//! - `content`: the book's chapters, tips and skeletons agree, and the
//!   commands its pages show run from a fresh clone;
//! - `architecture`: the engine's shape, as docs/ARCHITECTURE.md states it;
//! - `launcher`: `bin/runner` and the command `.ci/setup` installs.

#[path = "support/suite.rs"]
#[macro_use]
mod suite;

mod architecture;
mod chapters;
mod cli;
mod content;
mod hostile;
mod launcher;
mod learner;
mod litmus;
mod negative;

fn main() {
    // A job isolated in a child process (a wgpu or CUDA launch) re-enters here.
    runner::serve_if_child();
    suite::run(&[
        ("chapters", chapters::trials),
        ("negative", |_| negative::trials()),
        ("litmus", |_| litmus::trials()),
        ("hostile", |_| hostile::trials()),
        ("learner", |_| learner::trials()),
        ("content", |_| content::trials()),
        ("architecture", |_| architecture::trials()),
        ("launcher", |_| launcher::trials()),
    ])
}
