//! The learner's access diagram (`runner check --draw`): their copy run at
//! the teaching size on the CPU checker of its language with every access
//! kept (a CUDA copy with the headers it includes written in), and the
//! picture of who read and wrote which element written beside their file.
//! The picture is the core's ([`puzzle_core::draw::diagram`]), as the book
//! and the browser draw it.

use crate::atomic_file;
use crate::run::runner::Runner;
use puzzle_core::assess::input;
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::draw::diagram;
use puzzle_core::kernel::cut::Variant;
use puzzle_core::kernel::includes;
use puzzle_core::lang::Lang;
use puzzle_core::source::include::Files;
use std::path::{Path, PathBuf};

/// Why no diagram was drawn, in a sentence.
#[derive(Debug, thiserror::Error)]
pub enum DrawError {
    #[error("{0} {1}")]
    Input(String, String),
    #[error("no diagram: {0}")]
    NotRun(String),
    #[error("cannot write the diagram to {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Where the diagram of `file` goes: beside it, with `.svg` added.
pub fn diagram_path(file: &Path) -> PathBuf {
    let mut path = file.as_os_str().to_owned();
    path.push(".svg");
    PathBuf::from(path)
}

/// Draws the diagram of the learner's `lang` `file` for `puzzle`, and says
/// where it went; headers a CUDA file includes are read through `files`.
pub fn draw(
    runner: &Runner,
    puzzle: &Puzzle,
    lang: Lang,
    file: &Path,
    files: &dyn Files,
) -> Result<PathBuf, DrawError> {
    let mut source = input::validate(std::fs::read(file).ok(), file, puzzle).map_err(|bad| {
        let (what, fix) = bad.describe(file, puzzle.id(), lang);
        DrawError::Input(what, fix)
    })?;
    if lang == Lang::Cuda {
        source = includes::expand(&source, files).map_err(|e| DrawError::NotRun(e.to_string()))?;
    }
    let report = runner
        .traced(puzzle, lang, Variant::File, &source)
        .map_err(|e| DrawError::NotRun(e.to_string()))?;
    let Some(accesses) = &report.accesses else {
        let why = report
            .message
            .clone()
            .unwrap_or_else(|| format!("the CPU checker says {}", report.status.word()));
        return Err(DrawError::NotRun(why));
    };
    let path = diagram_path(file);
    atomic_file::write(
        &path,
        diagram::svg(accesses, puzzle.spec.raw.global_access.as_ref()).as_bytes(),
    )
    .map_err(|source| DrawError::Write {
        path: path.clone(),
        source,
    })?;
    Ok(path)
}
