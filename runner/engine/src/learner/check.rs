//! The learner's check on this machine: their copy read from the workspace
//! (a CUDA copy with the headers it includes written in, read from inside
//! the book) and checked through the runner, on the backend that runs its
//! language here (or the one they asked for). The verdict and its words are
//! the core's ([`puzzle_core::assess::learner`]), the same in the browser.

use crate::run::runner::Runner;
use puzzle_core::assess::execute;
use puzzle_core::assess::input;
use puzzle_core::assess::learner::{self, CheckReport, Subject};
use puzzle_core::backend_contract::backend::BackendKind;
use puzzle_core::backend_contract::outcome::Outcome;
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::judge::report::RunReport;
use puzzle_core::kernel::cut::Variant;
use puzzle_core::kernel::includes;
use puzzle_core::lang::Lang;
use puzzle_core::source::include::Files;
use std::path::Path;

/// Checks the learner's `file` for `puzzle` in `lang` on backend `kind`;
/// headers a CUDA file includes are read through `files`.
pub fn check(
    runner: &Runner,
    puzzle: &Puzzle,
    lang: Lang,
    kind: BackendKind,
    file: &Path,
    files: &dyn Files,
) -> CheckReport {
    let subject = Subject {
        puzzle,
        lang,
        file,
        backend: kind,
        device: runner.backend(kind).ok().map(|b| b.device().label()),
        stress: true,
    };
    let text = input::validate(std::fs::read(file).ok(), file, puzzle);
    learner::check(subject, text, |case, source| {
        let source = match lang {
            Lang::Cuda => includes::expand(source, files),
            Lang::Wgsl => Ok(source.clone()),
        };
        match source {
            Ok(source) => runner.run_on(kind, puzzle, Variant::File, &source, case),
            // A header that cannot be read is the learner's to fix, at the line that includes it.
            Err(error) => {
                let spec = execute::resolve(&puzzle.spec, case, runner.settings.memory)?;
                Ok(RunReport::new(
                    &spec,
                    lang,
                    Variant::File,
                    kind,
                    None,
                    Ok(Outcome::CompileFailed(vec![error])),
                ))
            }
        }
    })
}
