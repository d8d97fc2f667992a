//! The learner's access diagram (`runner check --draw`): their WGSL copy run
//! at the teaching size on the CPU checker with every access kept, and the
//! picture of who read and wrote which element written beside their file.
//! The picture is the core's ([`puzzle_core::judge::diagram`]), as the book
//! and the browser draw it.

use crate::atomic_file;
use crate::run::runner::Runner;
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::check::input;
use puzzle_core::judge::diagram;
use puzzle_core::kernel::cut::Variant;
use puzzle_core::lang::Lang;
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

/// Draws the diagram of the learner's WGSL `file` for `puzzle`, and says where it went.
pub fn draw(runner: &Runner, puzzle: &Puzzle, file: &Path) -> Result<PathBuf, DrawError> {
    let source = input::validate(std::fs::read(file).ok(), file, puzzle).map_err(|bad| {
        let (what, fix) = bad.describe(file, puzzle.id(), Lang::Wgsl);
        DrawError::Input(what, fix)
    })?;
    let report = runner
        .traced(puzzle, Variant::File, &source)
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
