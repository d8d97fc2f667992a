//! The learner's check on this machine: their copy read from the workspace
//! and checked through the runner, on the backend that runs its language
//! here (or the one they asked for). The verdict and its words are the
//! core's ([`puzzle_core::check::learner`]), the same in the browser.

use crate::run::runner::Runner;
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::check::input;
use puzzle_core::check::learner::{self, CheckReport, Subject};
use puzzle_core::kernel::cut::Variant;
use puzzle_core::lang::Lang;
use puzzle_core::run::backend::BackendKind;
use std::path::Path;

/// Checks the learner's `file` for `puzzle` in `lang` on backend `kind`.
pub fn check(
    runner: &Runner,
    puzzle: &Puzzle,
    lang: Lang,
    kind: BackendKind,
    file: &Path,
) -> CheckReport {
    let subject = Subject {
        puzzle,
        lang,
        file,
        backend: kind,
        device: runner.backend(kind).ok().map(|b| b.device().label()),
    };
    let text = input::validate(std::fs::read(file).ok(), file, puzzle);
    learner::check(subject, text, |case, source| {
        runner.run_on(kind, puzzle, Variant::File, source, case)
    })
}
